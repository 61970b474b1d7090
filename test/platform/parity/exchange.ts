import { brotliDecompressSync, gunzipSync } from "node:zlib";

/** One request of the differential: a path and how it is asked. */
export interface ParityRequest {
  site: string;
  /** The host asked: the production hostname, or a revision host (`<revision>--<slug>`). */
  host: string;
  path: string;
  /** `nav` (a browser navigation), `get`, `head`, `gzip`, `br`, `conditional` (If-None-Match). */
  variant: Variant;
}

export type Variant = "nav" | "get" | "head" | "gzip" | "br" | "conditional";
export const VARIANTS: Variant[] = ["nav", "get", "head", "gzip", "br", "conditional"];

/** What is compared of an answer. */
export interface ParityAnswer {
  status: number;
  location: string | undefined;
  body: string;
  contentType: string | undefined;
  cacheControl: string | undefined;
  /** The answer's fields that the site's `_headers` names, lowercase. */
  ruled: Record<string, string | undefined>;
  etag: string | undefined;
}

const NAV_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** The request headers and method of a variant; `etag` is the platform's own, for a conditional. */
export function requestOf(
  variant: Variant,
  etag: string | undefined,
): { method: string; headers: Record<string, string> } {
  switch (variant) {
    case "nav":
      return { method: "GET", headers: { accept: NAV_ACCEPT, "sec-fetch-mode": "navigate" } };
    case "head":
      return { method: "HEAD", headers: { accept: "*/*" } };
    case "gzip":
      return { method: "GET", headers: { accept: "*/*", "accept-encoding": "gzip" } };
    case "br":
      return { method: "GET", headers: { accept: "*/*", "accept-encoding": "br" } };
    case "conditional":
      return { method: "GET", headers: { accept: "*/*", ...(etag ? { "if-none-match": etag } : {}) } };
    default:
      return { method: "GET", headers: { accept: "*/*" } };
  }
}

/** A body as the client reads it: decoded from its content coding. */
export function decodedBody(bytes: Buffer, coding: string | undefined): string {
  if (coding === "gzip") return gunzipSync(bytes).toString();
  if (coding === "br") return brotliDecompressSync(bytes).toString();
  return bytes.toString();
}

/** The fields of two answers that differ, by name. */
export function differences(ours: ParityAnswer, theirs: ParityAnswer): string[] {
  const found: string[] = [];
  const compare = (name: string, a: unknown, b: unknown) => {
    if (a !== b) found.push(`${name}: ours ${JSON.stringify(a)}, Cloudflare ${JSON.stringify(b)}`);
  };
  compare("status", ours.status, theirs.status);
  compare("location", ours.location, theirs.location);
  compare("body", ours.body, theirs.body);
  compare("content-type", ours.contentType, theirs.contentType);
  compare("cache-control", ours.cacheControl, theirs.cacheControl);
  for (const name of Object.keys(ours.ruled)) compare(name, ours.ruled[name], theirs.ruled[name]);
  return found;
}
