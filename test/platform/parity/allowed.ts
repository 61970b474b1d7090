import type { ParityAnswer, ParityRequest } from "./exchange.js";

/** A difference the differential accepts, and why (docs/contract.md §7 lists the same). */
export interface AllowedDifference {
  name: string;
  reason: string;
  applies(req: ParityRequest, difference: string, ours: ParityAnswer, theirs: ParityAnswer): boolean;
}

/** URLs of the fixtures that a 200 rule Cloudflare drops as a loop serves here (see the first entry). */
const LOOP_SERVED = [/^rules-site-r4\/shop\/item\//, /^spa-site-s7\/app\/settings$/];
/** `/* /index.html 200` dropped: navigations still get the app (the dispatch Worker's fallback), others 404. */
const LOOP_SERVED_NOT_NAVIGATING = /^classic-spa-c8\/dashboard/;
/** Files of the fixtures that a 200 rule's source also matches (see the second entry). */
const SHADOWED = new Set(["rules-site-r4/assets/real.js"]);

export const PARITY_ALLOWED: AllowedDifference[] = [
  {
    name: "rule dropped as a loop",
    reason:
      "Cloudflare drops a rule to an index page from a pattern that covers it (/app/* /app/index.html " +
      "200); the built-in edge applies it; the client warns on Cloudflare",
    applies: (req) =>
      LOOP_SERVED.some((path) => path.test(req.site + req.path)) ||
      (req.variant !== "nav" && LOOP_SERVED_NOT_NAVIGATING.test(req.site + req.path)),
  },
  {
    name: "rewrite over a file",
    reason:
      "Cloudflare applies a 200 rule before it looks for a file, so /assets/* 200 replaces " +
      "/assets/real.js; the built-in edge rewrites only where no file answers; the client warns on Cloudflare",
    applies: (req) => SHADOWED.has(req.site + req.path),
  },
  {
    name: "304 for a 404 page",
    reason:
      "Cloudflare gives its 404 page an ETag and answers If-None-Match with 304; the built-in edge " +
      "sends a 404 page without a validator, so a browser never asks it conditionally",
    applies: (req, _difference, ours) => req.variant === "conditional" && ours.status === 404,
  },
  {
    name: "media type tables",
    reason:
      "the local workerd types .ico and .json from its own table (image/vnd.microsoft.icon, no " +
      "charset); Cloudflare and the built-in edge type them as uploaded",
    applies: (req, difference) => /\.(ico|json)$/.test(req.path) && difference.startsWith("content-type:"),
  },
];
