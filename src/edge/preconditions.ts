/** The preconditions of RFC 9110 §13.2.2 that a stored file answers with 412 or 304. */

import type { IncomingHttpHeaders } from "node:http";
import { entityTag } from "./negotiation.js";

/** What the preconditions decide: go on (If-None-Match and Range are judged later), 412 or 304. */
export type Verdict = "proceed" | "failed" | "not-modified";

/** Dates are compared in whole seconds: that is all an HTTP-date carries. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/**
 * If-Match (else If-Unmodified-Since) first: 412 when the file is not the one the client holds;
 * then If-Modified-Since, only when there is no If-None-Match (which `writeHead` judges per coding).
 * If-Match accepts the tag of any coding of this file: they are one resource state whose tags
 * differ only so caches keep each coding apart. A date that does not parse is ignored (§13.1.3).
 */
export function preconditionVerdict(
  headers: IncomingHttpHeaders,
  hash: string,
  lastModifiedMs: number,
): Verdict {
  const ifMatch = headers["if-match"];
  if (ifMatch !== undefined) {
    if (!matchesAnyCoding(ifMatch, hash)) return "failed";
  } else {
    const ifUnmodifiedSince = headers["if-unmodified-since"];
    if (ifUnmodifiedSince !== undefined) {
      const limit = Date.parse(ifUnmodifiedSince);
      if (!Number.isNaN(limit) && seconds(lastModifiedMs) > seconds(limit)) return "failed";
    }
  }
  if (headers["if-none-match"] === undefined) {
    const ifModifiedSince = headers["if-modified-since"];
    if (ifModifiedSince !== undefined) {
      const since = Date.parse(ifModifiedSince);
      if (!Number.isNaN(since) && seconds(lastModifiedMs) <= seconds(since)) return "not-modified";
    }
  }
  return "proceed";
}

/** If-Match by strong comparison (a weak tag never matches); `*` matches any existing file. */
function matchesAnyCoding(ifMatch: string, hash: string): boolean {
  if (ifMatch.trim() === "*") return true;
  const tags = [entityTag(hash, "identity"), entityTag(hash, "br"), entityTag(hash, "gzip")];
  return ifMatch.split(",").some((candidate) => tags.includes(candidate.trim()));
}

/** True when a request carries any validator, so it cannot take the ready-heads fast path. */
export function hasConditions(headers: IncomingHttpHeaders): boolean {
  return (
    headers["if-none-match"] !== undefined ||
    headers["if-modified-since"] !== undefined ||
    headers["if-match"] !== undefined ||
    headers["if-unmodified-since"] !== undefined
  );
}

/**
 * True when If-None-Match is the request's only precondition that counts: no If-Match or
 * If-Unmodified-Since (If-Modified-Since is ignored beside If-None-Match, RFC 9110 §13.1.3).
 */
export function onlyNoneMatch(headers: IncomingHttpHeaders): boolean {
  return (
    headers["if-none-match"] !== undefined &&
    headers["if-match"] === undefined &&
    headers["if-unmodified-since"] === undefined
  );
}
