import { parseHeaders } from "./parse-headers.js";
import { parseRedirects } from "./parse-redirects.js";
import type { SiteRules } from "./rule-types.js";

/** The texts of a site's rules files, undefined for a file the site does not have. */
export interface RulesFiles {
  redirects: string | undefined;
  headers: string | undefined;
}

/** Parses both files (the client before uploading, the platform at publish); throws InvalidSiteConfigError. */
export function parseSiteRules(files: RulesFiles): SiteRules {
  return {
    redirects: files.redirects === undefined ? [] : parseRedirects(files.redirects),
    headers: files.headers === undefined ? [] : parseHeaders(files.headers),
  };
}
