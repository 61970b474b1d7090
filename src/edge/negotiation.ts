/** Content coding and validator checks on request headers (RFC 9110 §12.5.3, §13.1). */

/** The content codings the edge can send. */
export type Encoding = "br" | "gzip" | "identity";

const Q_PARAM = /^\s*q\s*=\s*([0-9.]+)\s*$/i;

// Clients repeat the same Accept-Encoding on every request, so remembering the last answer saves
// the parse on the hot path.
let lastAcceptEncoding: string | undefined;
let lastEncoding: Encoding = "identity";

/**
 * The coding to send for an Accept-Encoding header: the acceptable one of higher weight, brotli on
 * a tie (it is smaller), identity when neither br nor gzip is acceptable.
 */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  if (acceptEncoding === undefined || acceptEncoding === "") return "identity";
  if (acceptEncoding === lastAcceptEncoding) return lastEncoding;
  let br: number | undefined;
  let gzip: number | undefined;
  let any: number | undefined;
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.split(";");
    const coding = name.trim().toLowerCase();
    let weight = 1;
    for (const param of params) {
      const match = Q_PARAM.exec(param);
      if (match) weight = Number(match[1]) || 0;
    }
    if (coding === "br") br = weight;
    else if (coding === "gzip" || coding === "x-gzip") gzip = weight;
    else if (coding === "*") any = weight;
  }
  const brWeight = br ?? any ?? 0;
  const gzipWeight = gzip ?? any ?? 0;
  let chosen: Encoding = "identity";
  if (brWeight > 0 && brWeight >= gzipWeight) chosen = "br";
  else if (gzipWeight > 0) chosen = "gzip";
  lastAcceptEncoding = acceptEncoding;
  lastEncoding = chosen;
  return chosen;
}

/** The strong entity tag of one encoded representation of a blob: each coding has its own bytes. */
export function entityTag(hash: string, encoding: Encoding): string {
  if (encoding === "br") return `"${hash}-br"`;
  if (encoding === "gzip") return `"${hash}-gz"`;
  return `"${hash}"`;
}

/** If-None-Match against the selected representation's tag, by weak comparison as the RFC asks. */
export function noneMatchHits(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  for (const candidate of ifNoneMatch.split(",")) {
    const tag = candidate.trim();
    if (tag === etag || (tag.startsWith("W/") && tag.slice(2) === etag)) return true;
  }
  return false;
}

/**
 * If-Range by strong comparison: a range applies only to the representation the client already
 * holds part of. The edge sends no Last-Modified, so a date never matches.
 */
export function ifRangeHolds(ifRange: string | undefined, identityTag: string): boolean {
  return ifRange === undefined || ifRange.trim() === identityTag;
}
