/** The part name (and file name) of a site script's only module. */
export const SITE_MODULE = "site.mjs";

/**
 * A site's Worker: it serves its static assets and nothing else. Hostnames, expiry and the
 * canonical Link header are the dispatch Worker's; the assets configuration does the rest.
 */
export const SITE_MODULE_SOURCE = `export default {
  fetch(request, env) {
    return env.ASSETS.fetch(request);
  },
};
`;

/** Matches our edge: `/a` serves `/a.html` or `/a/index.html`, a miss serves the nearest `404.html`. */
export const SITE_ASSETS_CONFIG = {
  html_handling: "auto-trailing-slash",
  not_found_handling: "404-page",
} as const;

export const COMPATIBILITY_DATE = "2025-01-01";

/** Tags put on a project's scripts, so they can be found (and deleted by tag) per project. */
export const projectTag = (slug: string) => `project-${slug}`;
