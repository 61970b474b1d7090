/** What a site's `_redirects` and `_headers` say, as parsed at publish and stored with the revision. */

/** The two files, at the site's root; neither is ever served. */
export const REDIRECTS_FILE = "_redirects";
export const HEADERS_FILE = "_headers";

/** Cloudflare Pages' limits: static and dynamic redirect rules, header rules, characters a line. */
export const MAX_STATIC_REDIRECTS = 2_000;
export const MAX_DYNAMIC_REDIRECTS = 100;
export const MAX_REDIRECT_LINE = 1_000;
export const MAX_HEADER_RULES = 100;
export const MAX_HEADER_LINE = 2_000;
/** Bytes of either file: room for every rule at its longest, and a bound on what a parse reads. */
export const MAX_RULES_FILE_BYTES = 4 * 1024 * 1024;

/** 200 rewrites inside the site; the others redirect. */
export type RedirectStatus = 200 | 301 | 302 | 303 | 307 | 308;

export interface RedirectRule {
  /** A site path: literal segments, `:name` placeholders (one segment), at most one `*` splat. */
  from: string;
  /** A site path or an absolute http(s) URL (for a 200: a site path), using the source's names. */
  to: string;
  status: RedirectStatus;
  /** Line of `_redirects` it came from. */
  line: number;
}

export interface HeaderRule {
  /** A site path pattern, as `RedirectRule.from`. */
  path: string;
  /** Headers set, names in lowercase, in file order (a name twice is joined with ", "). */
  set: [string, string][];
  /** Names (lowercase) removed with `! Name`, whatever set them. */
  remove: string[];
  line: number;
}

/** A revision's rules: both lists empty for a site without the files. */
export interface SiteRules {
  redirects: RedirectRule[];
  headers: HeaderRule[];
}

/** Rules of a site without `_redirects` or `_headers`. */
export const NO_RULES: SiteRules = Object.freeze({ redirects: [], headers: [] }) as SiteRules;
