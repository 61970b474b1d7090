/**
 * The rules files of the rules benchmark: 100 `_redirects` rules (80 static, 20 with splats or
 * placeholders) and 20 `_headers` rules, shaped like a real site's (old URLs moved, a blog and docs
 * moved under new prefixes, security headers everywhere, long caching for assets). None of the
 * redirects matches the served files, so those are answered as files, after every rule was tried.
 */
export function benchRulesFiles(): { redirects: string; headers: string } {
  const redirects: string[] = ["# pages that moved"];
  for (let i = 0; i < 80; i++) redirects.push(`/old/page-${i}   /pages/${i}   301`);
  const prefixes = ["blog", "news", "docs", "guides", "api-docs", "help", "kb", "shop", "team", "events"];
  for (const prefix of prefixes) redirects.push(`/${prefix}/*   /archive/${prefix}/:splat   302`);
  for (const prefix of prefixes) redirects.push(`/${prefix}-by-id/:id/:slug   /${prefix}/:slug?id=:id   301`);
  const headers: string[] = [
    "/*",
    "  X-Frame-Options: DENY",
    "  Content-Security-Policy: default-src 'self'; img-src 'self' data:",
    "  Permissions-Policy: camera=(), microphone=()",
    "/app.js",
    "  Cache-Control: public, max-age=31536000, immutable",
  ];
  for (let i = 0; i < 18; i++) headers.push(`/section-${i}/*`, `  X-Section: ${i}`);
  return { redirects: `${redirects.join("\n")}\n`, headers: `${headers.join("\n")}\n` };
}
