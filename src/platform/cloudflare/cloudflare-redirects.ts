import {
  cloudflareDropsAsLoop,
  cloudflareTwinsFit,
  type RedirectRule,
  slashTwinOf,
} from "../../core/site-rules/index.js";

/**
 * A site's `_redirects` as Cloudflare is given it, so that it answers as the built-in edge does
 * (docs/contract.md §7): every status spelled out (Cloudflare's default is 302, ours 301); a
 * rewrite's target as its canonical URL (Cloudflare answers `/a.html` with a redirect), but for a
 * rule Cloudflare drops as a loop; and, when Cloudflare's limits leave room for all of them,
 * each rule a second time with the trailing slash toggled, since Cloudflare matches it exactly.
 */
export function cloudflareRedirectsText(rules: readonly RedirectRule[]): string {
  const twins = cloudflareTwinsFit(rules);
  let text = "";
  for (const rule of rules) {
    text += lineOf(rule.from, rule);
    const twin = twins && !cloudflareDropsAsLoop(rule) ? slashTwinOf(rule.from) : undefined;
    if (twin !== undefined) text += lineOf(twin, rule);
  }
  return text;
}

function lineOf(from: string, rule: RedirectRule): string {
  // A rule Cloudflare drops as a loop is left to be dropped (see cloudflareDropsAsLoop).
  const to = rule.status === 200 && !cloudflareDropsAsLoop(rule) ? canonicalTarget(rule.to) : rule.to;
  return `${from} ${to} ${rule.status}\n`;
}

/** The canonical URL of a rewrite's target page: `/a.html` → `/a`, `/d/index.html` and `/d/index` → `/d/`. */
function canonicalTarget(to: string): string {
  if (/^https?:/i.test(to)) return to;
  return to.replace(
    /^([^?#]*?)(?:(\/)index(?:\.html)?|\.html)(?=$|[?#])/,
    (_whole, path: string, slash = "") => (path + slash === "" ? "/" : path + slash),
  );
}
