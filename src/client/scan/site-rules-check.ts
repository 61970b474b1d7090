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

/**
 * Parses the site's `_redirects` and `_headers` (at its root) before anything is uploaded, as the
 * server will at deploy, and stops at the first line that is wrong: `path/_redirects:3: what`.
 */
export async function checkSiteRules(cwd: string, files: readonly SiteFile[]): Promise<void> {
  for (const [name, parse] of [
    [REDIRECTS_FILE, parseRedirects],
    [HEADERS_FILE, parseHeaders],
  ] as const) {
    const file = files.find((candidate) => candidate.path === name);
    if (!file) continue;
    try {
      parse(decodeRulesFile(await readFile(file.absPath), name));
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
}
