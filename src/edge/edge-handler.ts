import type { IncomingMessage, ServerResponse } from "node:http";
import type { BlobStore } from "../platform/local/blob-store.js";
import type { PlatformDatabase } from "../platform/local/database.js";
import { BlobCache } from "./blob-cache.js";
import { sendFile, type BlobSource } from "./file-response.js";
import { NO_STORE, sendPlain, sendServerError } from "./plain-response.js";
import { candidatePaths, decodePath, requestTarget } from "./request-path.js";
import { PublishedSites } from "../platform/local/published-sites.js";

export interface EdgeOptions {
  db: PlatformDatabase;
  blobs: BlobStore;
  /** Generated hostnames are `<slug>.<sitesDomain>`, revision hosts `<revisionId>--<slug>.<sitesDomain>`. */
  sitesDomain: string;
  /** Milliseconds since the epoch, for expiry; injectable so tests can move time. */
  now?: () => number;
  /** Memory for blob bodies and their compressed variants; 0 streams everything from disk. */
  cacheBytes?: number;
  /** Largest blob kept in memory; larger ones are streamed from disk. */
  cacheFileBytes?: number;
  /** Told about every failure answered with 500 (the response itself never says why). */
  onError?: (error: unknown) => void;
}

/** A Node request listener: `http.createServer(createEdgeHandler(...))`. */
export type EdgeHandler = (req: IncomingMessage, res: ServerResponse) => void;

// A production page can change with any publish: browsers must ask again every time (a 304 is cheap).
const PRODUCTION_CACHE = "public, max-age=0, must-revalidate";
// A revision host's content never changes for as long as it is served.
const REVISION_CACHE = "public, max-age=31536000, immutable";

/**
 * The built-in edge: serves published sites by Host (contract §7). It never throws and never
 * rejects; a failure is answered with a plain 500 and reported to `onError`.
 */
export function createEdgeHandler(options: EdgeOptions): EdgeHandler {
  const lookup = new PublishedSites(options.db, { sitesDomain: options.sitesDomain, now: options.now });
  const source: BlobSource = {
    cache: new BlobCache({ maxBytes: options.cacheBytes, maxEntryBytes: options.cacheFileBytes }),
    blobs: options.blobs,
  };
  const report = options.onError ?? ((error: unknown) => console.error("edge: request failed:", error));
  const fail = (res: ServerResponse, error: unknown): void => {
    try {
      report(error);
    } catch {
      // A failing reporter must not take the response down with it.
    }
    try {
      sendServerError(res);
    } catch {
      res.destroy();
    }
  };
  return (req, res) => {
    try {
      const pending = serve(req, res, lookup, source);
      if (pending) pending.catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  };
}

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  lookup: PublishedSites,
  source: BlobSource,
): void | Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return sendPlain(res, 405, "Method Not Allowed", { allow: "GET, HEAD" });
  }
  const target = requestTarget(req.url ?? "", req.headers.host);
  const decoded = target && decodePath(target.rawPath);
  if (!target || !decoded || decoded.kind === "bad-request") return sendPlain(res, 400, "Bad Request");
  const site = target.host === undefined ? undefined : lookup.resolve(target.host);
  if (!site) return sendPlain(res, 404, "Not Found");

  if (decoded.kind === "path") {
    const cacheControl = site.immutable ? REVISION_CACHE : PRODUCTION_CACHE;
    for (const path of candidatePaths(decoded.path)) {
      const file = lookup.findFile(site.projectSlug, site.revisionId, path);
      if (file) return sendFile(req, res, source, { file, status: 200, cacheControl });
    }
  }
  const page = lookup.findFile(site.projectSlug, site.revisionId, "/404.html");
  if (page) return sendFile(req, res, source, { file: page, status: 404, cacheControl: NO_STORE });
  return sendPlain(res, 404, "Not Found");
}
