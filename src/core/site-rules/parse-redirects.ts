import { failLine, LineProblems } from "./line-problems.js";
import { compilePattern, patternNames, unboundNames } from "./path-pattern.js";
import {
  MAX_DYNAMIC_REDIRECTS,
  MAX_REDIRECT_LINE,
  MAX_STATIC_REDIRECTS,
  REDIRECTS_FILE,
  type RedirectRule,
  type RedirectStatus,
} from "./rule-types.js";
import { splitLines } from "./text-lines.js";

const STATUSES: readonly RedirectStatus[] = [301, 302, 303, 307, 308, 200];
const ABSOLUTE = /^https?:\/\/[^/\s]+/i;

/**
 * Parses `_redirects` (`from to [status]` a line, `#` comments, blank lines), checking every rule
 * and Cloudflare Pages' limits. Throws InvalidSiteConfigError naming every line that is wrong.
 */
export function parseRedirects(text: string): RedirectRule[] {
  const problems = new LineProblems(REDIRECTS_FILE);
  const rules: RedirectRule[] = [];
  const counts = { statics: 0, dynamics: 0 };
  for (const { number, content } of splitLines(text, REDIRECTS_FILE)) {
    problems.check(() => {
      const rule = parseLine(number, content, counts);
      if (rule !== undefined) rules.push(rule);
    });
  }
  problems.throwIfAny();
  return rules;
}

/** One line's rule (undefined for a blank line or a comment); fails with `failLine`. */
function parseLine(
  number: number,
  content: string,
  counts: { statics: number; dynamics: number },
): RedirectRule | undefined {
  if (content.length > MAX_REDIRECT_LINE) {
    failLine(number, `line is ${content.length} characters long; at most ${MAX_REDIRECT_LINE}`);
  }
  const trimmed = content.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return undefined;
  const fields = trimmed.split(/\s+/);
  if (fields.length < 2 || fields.length > 3) {
    failLine(
      number,
      `expected "from to [status]", got ${fields.length} field${fields.length === 1 ? "" : "s"}`,
    );
  }
  const [from, to, code] = fields as [string, string, string | undefined];
  const names = patternNames(from);
  if (typeof names === "string") return failLine(number, names);
  const status = code === undefined ? 301 : parseStatus(code);
  if (status === undefined) {
    return failLine(number, `status "${code}" is not one of ${STATUSES.join(", ")}`);
  }
  checkTarget(to, status, number);
  const unbound = unboundNames(to, names);
  if (unbound.length > 0) {
    failLine(number, `the target uses :${unbound[0]}, which "${from}" does not bind`);
  }
  if (compilePattern(from).kind === "static") {
    if (++counts.statics > MAX_STATIC_REDIRECTS) {
      failLine(number, `more than ${MAX_STATIC_REDIRECTS} static rules`);
    }
  } else if (++counts.dynamics > MAX_DYNAMIC_REDIRECTS) {
    failLine(number, `more than ${MAX_DYNAMIC_REDIRECTS} dynamic rules (with * or :placeholders)`);
  }
  return { from, to, status, line: number };
}

function parseStatus(code: string): RedirectStatus | undefined {
  if (!/^\d{3}$/.test(code)) return undefined;
  const status = Number(code) as RedirectStatus;
  return STATUSES.includes(status) ? status : undefined;
}

/** A redirect goes to a site path or an http(s) URL; a rewrite (200) only to a path of the site. */
function checkTarget(to: string, status: RedirectStatus, line: number): void {
  if (status === 200) {
    if (!to.startsWith("/") || to.startsWith("//")) {
      failLine(line, `a 200 rewrite must go to a path of this site starting with /, not "${to}"`);
    }
    return;
  }
  if (to.startsWith("/") && !to.startsWith("//") && !to.startsWith("/\\")) return;
  if (ABSOLUTE.test(to)) {
    try {
      new URL(to);
      return;
    } catch {
      // Reported below.
    }
  }
  failLine(line, `the target "${to}" must be a path starting with / or an http(s) URL`);
}
