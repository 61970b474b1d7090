import {
  cloudflareDropsAsLoop,
  cloudflareShadowedFiles,
  cloudflareTwinsFit,
  parseRedirects,
  slashTwinOf,
} from "../../core/site-rules/index.js";
import type { CommandContext } from "../context.js";
import type { SiteRulesTexts } from "../scan/site-rules-check.js";
import type { SiteFile } from "../scan/walk-state.js";

/** Files named in one warning; the rest are counted. */
const NAMED = 3;

/**
 * Warns, on a server whose platform is Cloudflare, of what its rules do differently there
 * (docs/contract.md §7): rules it drops as loops, `_redirects` 200 rules that match files of the
 * site (Cloudflare serves the rule's target in their place), and rules whose trailing slash
 * Cloudflare's limits leave no room to make optional. The deploy goes on.
 */
export function warnCloudflareDrops(
  ctx: CommandContext,
  rules: SiteRulesTexts,
  files: readonly SiteFile[],
): void {
  if (rules.redirects === undefined) return;
  const redirects = parseRedirects(rules.redirects);
  if (!cloudflareTwinsFit(redirects) && redirects.some((rule) => slashTwinOf(rule.from) !== undefined)) {
    ctx.progress.note(
      "warning: _redirects: too many rules for Cloudflare to match each with and without a trailing slash; " +
        "there a rule matches only the path as written",
    );
  }
  for (const rule of redirects.filter(cloudflareDropsAsLoop)) {
    ctx.progress.note(
      `warning: _redirects:${rule.line}: Cloudflare drops "${rule.from} ${rule.to} ${rule.status}" as a loop ` +
        `(a pattern covering the index page it points to); there its URLs answer as if it were not written`,
    );
  }
  const urls = files.map((file) => urlOf(`/${file.path}`));
  for (const { rule, files: covered } of cloudflareShadowedFiles(redirects, urls)) {
    // The rule's own target page is not replaced: it is what the rule serves.
    const shadowed = covered.filter((url) => url !== urlOf(rule.to));
    if (shadowed.length === 0) continue;
    const named = shadowed.slice(0, NAMED).join(", ");
    const more = shadowed.length > NAMED ? ` and ${shadowed.length - NAMED} more` : "";
    ctx.progress.note(
      `warning: _redirects:${rule.line}: on Cloudflare "${rule.from} ${rule.to} 200" also replaces ` +
        `${named}${more} (Cloudflare rewrites before it looks for a file); narrow its pattern`,
    );
  }
}

/** The URL a file is asked for at (`/a` for `/a.html`, `/d/` for `/d/index.html`). */
function urlOf(path: string): string {
  return path.replace(/(^|\/)index\.html$/, "$1").replace(/\.html$/, "");
}
