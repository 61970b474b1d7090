import { InvalidSiteConfigError } from "../errors.js";
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
 * and Cloudflare Pages' limits. Throws InvalidSiteConfigError naming the first line that is wrong.
 */
export function parseRedirects(text: string): RedirectRule[] {
  const fail = (line: number, reason: string): never => {
    throw new InvalidSiteConfigError(REDIRECTS_FILE, line, reason);
  };
  const rules: RedirectRule[] = [];
  let statics = 0;
  let dynamics = 0;
  for (const { number, content } of splitLines(text, REDIRECTS_FILE)) {
    if (content.length > MAX_REDIRECT_LINE) {
      fail(number, `line is ${content.length} characters long; at most ${MAX_REDIRECT_LINE}`);
    }
    const trimmed = content.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const fields = trimmed.split(/\s+/);
    if (fields.length < 2 || fields.length > 3) {
      fail(
        number,
        `expected "from to [status]", got ${fields.length} field${fields.length === 1 ? "" : "s"}`,
      );
    }
    const [from, to, code] = fields as [string, string, string | undefined];
    const names = patternNames(from);
    if (typeof names === "string") return fail(number, names);
    const status = code === undefined ? 301 : parseStatus(code);
    if (status === undefined) {
      return fail(number, `status "${code}" is not one of ${STATUSES.join(", ")}`);
    }
    checkTarget(to, status, number, fail);
    const unbound = unboundNames(to, names);
    if (unbound.length > 0) {
      fail(number, `the target uses :${unbound[0]}, which "${from}" does not bind`);
    }
    if (compilePattern(from).kind === "static") {
      if (++statics > MAX_STATIC_REDIRECTS) fail(number, `more than ${MAX_STATIC_REDIRECTS} static rules`);
    } else if (++dynamics > MAX_DYNAMIC_REDIRECTS) {
      fail(number, `more than ${MAX_DYNAMIC_REDIRECTS} dynamic rules (with * or :placeholders)`);
    }
    rules.push({ from, to, status, line: number });
  }
  return rules;
}

function parseStatus(code: string): RedirectStatus | undefined {
  if (!/^\d{3}$/.test(code)) return undefined;
  const status = Number(code) as RedirectStatus;
  return STATUSES.includes(status) ? status : undefined;
}

/** A redirect goes to a site path or an http(s) URL; a rewrite (200) only to a path of the site. */
function checkTarget(
  to: string,
  status: RedirectStatus,
  line: number,
  fail: (line: number, reason: string) => never,
): void {
  if (status === 200) {
    if (!to.startsWith("/") || to.startsWith("//")) {
      fail(line, `a 200 rewrite must go to a path of this site starting with /, not "${to}"`);
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
  fail(line, `the target "${to}" must be a path starting with / or an http(s) URL`);
}
