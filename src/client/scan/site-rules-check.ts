import { readFile } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { InvalidSiteConfigError } from "../../core/errors.js";
import {
  decodeRulesFile,
  HEADERS_FILE,
  parseHeaders,
  parseRedirects,
  REDIRECTS_FILE,
} from "../../core/site-rules/index.js";
import { CliError } from "../errors.js";
import type { SiteFile } from "./walk.js";

/** The texts of the site's rules files, sent with the deploy (Cloudflare applies them from there). */
export interface SiteRulesTexts {
  redirects?: string;
  headers?: string;
}

/**
 * Parses the site's `_redirects` and `_headers` (at its root) before anything is uploaded, as the
 * server will at deploy, and stops at the first line that is wrong: `path/_redirects:3: what`.
 * Returns their texts, exactly as their bytes (a BOM kept), so their hashes match the manifest's.
 */
export async function checkSiteRules(cwd: string, files: readonly SiteFile[]): Promise<SiteRulesTexts> {
  const texts: SiteRulesTexts = {};
  for (const [key, name, parse] of [
    ["redirects", REDIRECTS_FILE, parseRedirects],
    ["headers", HEADERS_FILE, parseHeaders],
  ] as const) {
    const file = files.find((candidate) => candidate.path === name);
    if (!file) continue;
    try {
      const bytes = await readFile(file.absPath);
      parse(decodeRulesFile(bytes, name));
      // Valid UTF-8 (decodeRulesFile refuses anything else), so this text encodes back to `bytes`.
      texts[key] = bytes.toString("utf8");
    } catch (error) {
      if (!(error instanceof InvalidSiteConfigError)) throw error;
      const shown = relative(cwd, file.absPath);
      const where = shown.startsWith("..") || isAbsolute(shown) ? file.absPath : shown;
      const at = error.line > 0 ? `${where}:${error.line}` : where;
      throw new CliError(
        "INVALID_SITE_CONFIG",
        `${at}: ${error.reason}`,
        `Fix ${name} and deploy again (syntax: the README's "Site configuration").`,
      );
    }
  }
  return texts;
}
