/**
 * From a request target to the site paths that may answer it (contract §7). The edge never builds
 * a filesystem path from the URL: a decoded path is only ever a key into the revision's manifest,
 * so a traversal attempt can at worst name a file that does not exist.
 */

import { CONTROL_CHARACTER } from "../core/formats.js";

/** Where a request is aimed: the hostname to serve, the still-encoded path and the query ("" or from `?`). */
export interface RequestTarget {
  host: string | undefined;
  rawPath: string;
  query: string;
}

/** A decoded site path, or why there is none: 400 (malformed) or the site's 404. */
export type DecodedPath = { kind: "path"; path: string } | { kind: "bad-request" } | { kind: "not-found" };

// Characters no manifest key may hold (contract §2), plus `/` that only `%2F` can bring into a segment.
const NEVER_IN_SEGMENT = new RegExp(String.raw`${CONTROL_CHARACTER.source}|[\\/]`, "u");

/** Splits a request target into host and path; absolute-form targets carry their own host (RFC 9112 §3.2.2). */
export function requestTarget(url: string, hostHeader: string | undefined): RequestTarget | undefined {
  if (url.startsWith("/")) {
    const end = url.search(/[?#]/);
    if (end === -1) return { host: hostHeader, rawPath: url, query: "" };
    const hash = url.indexOf("#", end);
    const query = url[end] === "?" ? url.slice(end, hash === -1 ? undefined : hash) : "";
    return { host: hostHeader, rawPath: url.slice(0, end), query };
  }
  if (!/^https?:\/\//i.test(url)) return undefined;
  try {
    const parsed = new URL(url);
    return { host: parsed.host, rawPath: parsed.pathname, query: parsed.search };
  } catch {
    return undefined;
  }
}

/**
 * Decodes percent-encoding segment by segment. Malformed encoding is a 400. A segment that is
 * empty (except the last), `.`, `..`, or holds a control character, a backslash or an encoded
 * `/` can never match a manifest key, so it is answered as not found (the site's 404), not 400.
 */
export function decodePath(rawPath: string): DecodedPath {
  const segments = rawPath.split("/");
  const last = segments.length - 1;
  for (let i = 1; i <= last; i++) {
    let segment = segments[i]!;
    if (segment.includes("%")) {
      try {
        segment = decodeURIComponent(segment);
      } catch {
        return { kind: "bad-request" };
      }
      segments[i] = segment;
    }
    if (segment === "" ? i !== last : segment === "." || segment === ".." || NEVER_IN_SEGMENT.test(segment)) {
      return { kind: "not-found" };
    }
  }
  return { kind: "path", path: segments.join("/") };
}

/** The manifest paths that may serve a decoded path, in order: `/a`, `/a.html`, `/a/index.html`. */
export function candidatePaths(path: string): string[] {
  if (path.endsWith("/")) return [`${path}index.html`];
  return [path, `${path}.html`, `${path}/index.html`];
}
