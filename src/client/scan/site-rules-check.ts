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
import type { SiteFile } from "./walk-state.js";

/** The texts of the site's rules files, sent with the deploy (Cloudflare applies them from there). */
export interface SiteRulesTexts {
  redirects?: string;
  headers?: string;
}

/** Most wrong lines named; the rest are counted. */
const SHOWN = 50;

/**
 * Parses the site's `_redirects` and `_headers` (at its root) before anything is uploaded, as the
 * server will at deploy, and names every line that is wrong in both: `path/_redirects:3: what`.
 * Returns their texts, exactly as their bytes (a BOM kept), so their hashes match the manifest's.
 */
export async function checkSiteRules(cwd: string, files: readonly SiteFile[]): Promise<SiteRulesTexts> {
  const texts: SiteRulesTexts = {};
  const problems: string[] = [];
  const names: string[] = [];
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
      for (const { line, reason } of error.problems) {
        problems.push(`${line > 0 ? `${where}:${line}` : where}: ${reason}`);
      }
      names.push(name);
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, SHOWN).map((problem) => `  ${problem}`);
    if (problems.length > SHOWN) shown.push(`  … and ${problems.length - SHOWN} more`);
    throw new CliError(
      "INVALID_SITE_CONFIG",
      problems.length === 1
        ? problems[0]!
        : `${problems.length} lines of the site's rules are wrong:\n${shown.join("\n")}`,
      `Fix ${names.join(" and ")} and deploy again (syntax: the README's "Site configuration").`,
    );
  }
  return texts;
}
