import { failLine, LineProblems } from "./line-problems.js";
import { patternNames } from "./path-pattern.js";
import { HEADERS_FILE, type HeaderRule, MAX_HEADER_LINE, MAX_HEADER_RULES } from "./rule-types.js";
import { splitLines } from "./text-lines.js";

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// What Node refuses in a header value: control characters other than tab, and anything past Latin-1.
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
/** Fields the edge owns (framing, validators, coding, redirects): `_headers` may not set or remove them. */
const EDGE_OWNED = new Set([
  "accept-ranges",
  "connection",
  "content-encoding",
  "content-length",
  "content-range",
  "date",
  "etag",
  "keep-alive",
  "last-modified",
  "location",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "vary",
]);

/** Where the parse of `_headers` stands between lines. */
interface HeadersState {
  current: HeaderRule | undefined;
  /** A path line was seen (valid or not): indented lines belong to it, not to nothing. */
  inRule: boolean;
  /** A line under the current rule was refused. */
  lineFailed: boolean;
}

/**
 * Parses `_headers`: a path pattern on an unindented line, then indented `Name: value` lines (or
 * `! Name` to remove a header), `#` comments and blank lines. Throws InvalidSiteConfigError naming
 * every line that is wrong.
 */
export function parseHeaders(text: string): HeaderRule[] {
  const problems = new LineProblems(HEADERS_FILE);
  const rules: HeaderRule[] = [];
  // The rule the indented lines below add to; undefined before any path, or under a bad one.
  const state: HeadersState = { current: undefined, inRule: false, lineFailed: false };
  const finish = (): void => {
    const { current } = state;
    // A rule whose header lines were all refused has those named already.
    if (current && current.set.length === 0 && current.remove.length === 0 && !state.lineFailed) {
      problems.add(current.line, `no header lines under "${current.path}" (indent them below the path)`);
    }
    state.lineFailed = false;
  };
  for (const { number, content } of splitLines(text, HEADERS_FILE)) {
    if (!problems.check(() => parseLine(number, content, rules, state, finish))) state.lineFailed = true;
  }
  finish();
  problems.throwIfAny();
  return rules;
}

/** Reads one line into `rules`; fails with `failLine`. */
function parseLine(
  number: number,
  content: string,
  rules: HeaderRule[],
  state: HeadersState,
  finish: () => void,
): void {
  if (content.length > MAX_HEADER_LINE) {
    failLine(number, `line is ${content.length} characters long; at most ${MAX_HEADER_LINE}`);
  }
  const trimmed = content.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return;
  if (!/^\s/.test(content)) {
    // An unindented line that is no path is most likely a header line missing its indent: it
    // stays with the rule above (whose lines it then does not leave empty).
    const names = patternNames(trimmed);
    state.inRule = true;
    if (typeof names === "string") return failLine(number, `${names}; header lines must be indented`);
    finish();
    state.current = undefined;
    if (rules.length === MAX_HEADER_RULES) failLine(number, `more than ${MAX_HEADER_RULES} rules`);
    state.current = { path: trimmed, set: [], remove: [], line: number };
    rules.push(state.current);
    return;
  }
  const { current } = state;
  // Lines under a path that was refused are not judged again as orphans.
  if (!current) return state.inRule ? undefined : failLine(number, "a header line before any path");
  if (trimmed.startsWith("!")) {
    current.remove.push(headerName(trimmed.slice(1).trim(), number));
    return;
  }
  const colon = trimmed.indexOf(":");
  if (colon === -1) return failLine(number, `expected "Name: value" or "! Name", got "${trimmed}"`);
  const name = headerName(trimmed.slice(0, colon).trim(), number);
  const value = trimmed.slice(colon + 1).trim();
  if (value === "") failLine(number, `"${name}" has no value`);
  if (BAD_VALUE.test(value))
    failLine(number, `the value of "${name}" holds a character a header cannot carry`);
  current.set.push([name, value]);
}

function headerName(name: string, line: number): string {
  if (!TOKEN.test(name)) return failLine(line, `"${name}" is not a header name`);
  const lower = name.toLowerCase();
  if (EDGE_OWNED.has(lower)) failLine(line, `${name} is set by the edge itself; _headers cannot change it`);
  return lower;
}
