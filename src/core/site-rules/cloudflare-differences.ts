import { compilePattern } from "./path-pattern.js";
import { MAX_DYNAMIC_REDIRECTS, MAX_STATIC_REDIRECTS, type RedirectRule } from "./rule-types.js";

/**
 * What Cloudflare's asset server does differently with a site's rules (docs/contract.md §7): the
 * platform rewrites what it can, the client warns of the rest.
 */

/** A 200 rule and the site's files its source matches. */
export interface ShadowingRewrite {
  rule: RedirectRule;
  files: string[];
}

/**
 * The 200 rules whose source matches files of the site (`paths`, decoded site paths). The built-in
 * edge rewrites only where no file answers; Cloudflare rewrites first, so there those files are
 * replaced by the rule's target, and the client warns at deploy (docs/contract.md §7).
 */
export function cloudflareShadowedFiles(
  rules: readonly RedirectRule[],
  paths: readonly string[],
): ShadowingRewrite[] {
  const found: ShadowingRewrite[] = [];
  for (const rule of rules) {
    if (rule.status !== 200 || cloudflareDropsAsLoop(rule)) continue;
    const pattern = compilePattern(rule.from);
    const regex = pattern.kind === "static" ? undefined : new RegExp(pattern.source, "s");
    const files = paths.filter((path) =>
      regex === undefined ? pattern.kind === "static" && pattern.key === path : regex.test(path),
    );
    if (files.length > 0) found.push({ rule, files });
  }
  return found;
}

/**
 * Whether Cloudflare drops the rule as a loop: a site-path target that is an `index` page
 * (`/index`, `/index.html`) from a source ending in `/*` or `/`, whatever the status. The
 * platform leaves such a rule as written (made to reach the page's canonical URL, `/app/* /app/`
 * would replace every file under `/app/` there), so its URLs answer on Cloudflare as if it were
 * not written; the client warns at deploy.
 */
export function cloudflareDropsAsLoop(rule: RedirectRule): boolean {
  if (/^https?:/i.test(rule.to)) return false;
  const toIndex = /\/index(\.html)?$/.test(rule.to.replace(/[?#].*$/s, ""));
  return toIndex && (rule.from.endsWith("/*") || rule.from.endsWith("/"));
}

/** Whether a pattern has a placeholder or a splat. */
function isDynamic(pattern: string): boolean {
  return pattern.includes("*") || /:[A-Za-z]/.test(pattern);
}

/**
 * The same source with its trailing slash toggled, where ours matches both and Cloudflare one:
 * a static path either way, a dynamic one only gaining a slash (`/u/:id` → `/u/:id/`); none for
 * `/`, for a splat at the end (it matches both already) or a dynamic source ending in `/`.
 */
export function slashTwinOf(from: string): string | undefined {
  if (from === "/" || from.endsWith("*")) return undefined;
  if (!isDynamic(from)) return from.endsWith("/") ? from.slice(0, -1) : `${from}/`;
  return from.endsWith("/") ? undefined : `${from}/`;
}

/**
 * Whether every rule's slash twin fits beside the rules within Cloudflare's limits: then the
 * platform gives Cloudflare both and a trailing slash stays optional there; else the client warns.
 */
export function cloudflareTwinsFit(rules: readonly RedirectRule[]): boolean {
  let statics = 0;
  let dynamics = 0;
  for (const rule of rules) {
    const copies = slashTwinOf(rule.from) === undefined ? 1 : 2;
    if (isDynamic(rule.from)) dynamics += copies;
    else statics += copies;
  }
  return statics <= MAX_STATIC_REDIRECTS && dynamics <= MAX_DYNAMIC_REDIRECTS;
}
