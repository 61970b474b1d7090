import { InvalidSiteConfigError } from "../errors.js";
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

/**
 * Parses `_headers`: a path pattern on an unindented line, then indented `Name: value` lines (or
 * `! Name` to remove a header), `#` comments and blank lines. Throws InvalidSiteConfigError naming
 * the first line that is wrong.
 */
export function parseHeaders(text: string): HeaderRule[] {
  const fail = (line: number, reason: string): never => {
    throw new InvalidSiteConfigError(HEADERS_FILE, line, reason);
  };
  const rules: HeaderRule[] = [];
  let current: HeaderRule | undefined;
  const finish = (): void => {
    if (current && current.set.length === 0 && current.remove.length === 0) {
      fail(current.line, `no header lines under "${current.path}" (indent them below the path)`);
    }
  };
  for (const { number, content } of splitLines(text, HEADERS_FILE)) {
    if (content.length > MAX_HEADER_LINE) {
      fail(number, `line is ${content.length} characters long; at most ${MAX_HEADER_LINE}`);
    }
    const trimmed = content.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (!/^\s/.test(content)) {
      // An unindented line that is no path is most likely a header line missing its indent.
      const names = patternNames(trimmed);
      if (typeof names === "string") return fail(number, `${names}; header lines must be indented`);
      finish();
      if (rules.length === MAX_HEADER_RULES) fail(number, `more than ${MAX_HEADER_RULES} rules`);
      current = { path: trimmed, set: [], remove: [], line: number };
      rules.push(current);
      continue;
    }
    if (!current) return fail(number, "a header line before any path");
    if (trimmed.startsWith("!")) {
      current.remove.push(headerName(trimmed.slice(1).trim(), number, fail));
      continue;
    }
    const colon = trimmed.indexOf(":");
    if (colon === -1) return fail(number, `expected "Name: value" or "! Name", got "${trimmed}"`);
    const name = headerName(trimmed.slice(0, colon).trim(), number, fail);
    const value = trimmed.slice(colon + 1).trim();
    if (value === "") fail(number, `"${name}" has no value`);
    if (BAD_VALUE.test(value)) fail(number, `the value of "${name}" holds a character a header cannot carry`);
    current.set.push([name, value]);
  }
  finish();
  return rules;
}

function headerName(name: string, line: number, fail: (line: number, reason: string) => never): string {
  if (!TOKEN.test(name)) return fail(line, `"${name}" is not a header name`);
  const lower = name.toLowerCase();
  if (EDGE_OWNED.has(lower)) fail(line, `${name} is set by the edge itself; _headers cannot change it`);
  return lower;
}
