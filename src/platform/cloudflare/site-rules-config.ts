import { hashAsset } from "../../core/asset-hash.js";
import { InvalidSiteConfigError } from "../../core/errors.js";
import type { ManifestEntry } from "../../core/manifest.js";
import type { PublishInput } from "../../core/ports/index.js";
import { cloudflareRedirectsText } from "./cloudflare-redirects.js";
import { HEADERS_FILE, parseSiteRules, REDIRECTS_FILE } from "../../core/site-rules/index.js";

/** The manifest's hashes of the site's rules files, kept with the session until publish. */
export interface RulesHashes {
  redirects?: string;
  headers?: string;
}

const FILES = [
  { key: "redirects", name: REDIRECTS_FILE },
  { key: "headers", name: HEADERS_FILE },
] as const;

/** The hashes of `/_redirects` and `/_headers` among a session's manifest entries. */
export function rulesHashesOf(entries: readonly ManifestEntry[]): RulesHashes {
  const hashes: RulesHashes = {};
  for (const { key, name } of FILES) {
    const entry = entries.find((e) => e.path === `/${name}`);
    if (entry !== undefined) hashes[key] = entry.hash;
  }
  return hashes;
}

/**
 * The `_redirects` and `_headers` of a Worker's assets configuration: Cloudflare applies them, and
 * the API never sees the files' bytes, so the client sends their text at deploy. Each text must
 * be the very file the manifest names (same hash) and parse by our rules; InvalidSiteConfigError
 * otherwise, before anything is published.
 */
export async function siteRulesConfig(
  hashes: RulesHashes,
  sent: PublishInput["siteRules"],
): Promise<{ _redirects?: string; _headers?: string }> {
  const config: { _redirects?: string; _headers?: string } = {};
  for (const { key, name } of FILES) {
    const text = sent?.[key];
    const expected = hashes[key];
    if (expected === undefined) {
      if (text !== undefined)
        throw new InvalidSiteConfigError(name, 0, "sent with the deploy but not in the manifest");
      continue;
    }
    if (text === undefined) {
      throw new InvalidSiteConfigError(
        name,
        0,
        `on Cloudflare its text must be sent with the deploy (siteRules.${key}); update the deploy client`,
      );
    }
    if ((await hashAsset(Buffer.from(text), `/${name}`)) !== expected) {
      throw new InvalidSiteConfigError(
        name,
        0,
        "the text sent with the deploy is not the file in the manifest",
      );
    }
    // The hash is over the file's bytes, a leading BOM included; Cloudflare gets the text without it.
    config[`_${key}`] = text.replace(/^\uFEFF/, "");
  }
  const parsed = parseSiteRules({ redirects: config._redirects, headers: config._headers });
  // Written again so that Cloudflare answers as the built-in edge does.
  if (config._redirects !== undefined) config._redirects = cloudflareRedirectsText(parsed.redirects);
  return config;
}
