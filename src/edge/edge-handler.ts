import type { IncomingMessage, ServerResponse } from "node:http";
import type { BlobStore } from "../platform/local/blob-store.js";
import type { PlatformDatabase } from "../platform/local/database.js";
import { BlobCache } from "./blob-cache.js";
import { fileAnswer, sendFile, type BlobSource } from "./file-response.js";
import { NO_STORE, sendPlain, sendServerError } from "./plain-response.js";
import { candidatePaths, decodePath, requestTarget } from "./request-path.js";
import { RouteMemo, type Route } from "./route-memo.js";
import { VariantMaker } from "./variants.js";
import { PublishedSites, type SiteTarget } from "../platform/local/published-sites.js";

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
  /** Most request targets whose route is remembered (all sites together); 0 remembers none. */
  maxRoutes?: number;
  /** Compressions running at once (default: half the cores, at least one); beyond, files go as they are. */
  maxCompressions?: number;
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
  const sites: Sites = {
    lookup: new PublishedSites(options.db, { sitesDomain: options.sitesDomain, now: options.now }),
    routes: new RouteMemo(options.maxRoutes),
  };
  const cache = new BlobCache({ maxBytes: options.cacheBytes, maxEntryBytes: options.cacheFileBytes });
  const source: BlobSource = {
    cache,
    blobs: options.blobs,
    variants: new VariantMaker(cache, options.blobs, options.maxCompressions),
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
      const pending = serve(req, res, sites, source);
      if (pending) pending.catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  };
}

/** What the edge knows of the published sites: the manifest's lookups and its own route memo. */
interface Sites {
  lookup: PublishedSites;
  routes: RouteMemo;
}

const SLASH = 0x2f;

function serve(
  req: IncomingMessage,
  res: ServerResponse,
  sites: Sites,
  source: BlobSource,
): void | Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return sendPlain(res, 405, "Method Not Allowed", { allow: "GET, HEAD" });
  }
  // The usual origin-form target is routed as sent, query included: the memo needs no parsing.
  const url = req.url ?? "";
  let host = req.headers.host;
  let target = url;
  if (url.charCodeAt(0) !== SLASH) {
    const absolute = requestTarget(url, host);
    if (!absolute) return sendPlain(res, 400, "Bad Request");
    host = absolute.host;
    target = absolute.rawPath;
  }
  const site = host === undefined ? undefined : sites.lookup.resolve(host);
  if (!site) {
    // A malformed path is a 400 whether or not the host serves anything.
    const bad = decodePath(pathOf(target)).kind === "bad-request";
    return bad ? sendPlain(res, 400, "Bad Request") : sendPlain(res, 404, "Not Found");
  }
  let route = sites.routes.get(site, target);
  if (route === undefined) {
    route = routeOf(sites.lookup, site, pathOf(target));
    sites.routes.set(site, target, route);
  }
  if (route === "bad-request") return sendPlain(res, 400, "Bad Request");
  if (route === "not-found") return sendPlain(res, 404, "Not Found");
  return sendFile(req, res, source, route);
}

/** The still-encoded path of an origin-form target (without query or fragment). */
function pathOf(target: string): string {
  return requestTarget(target, undefined)!.rawPath;
}

/** Where a path of a site leads (contract §7): a file, its extensionless or index form, or the 404 page. */
function routeOf(lookup: PublishedSites, site: SiteTarget, rawPath: string): Route {
  const decoded = decodePath(rawPath);
  if (decoded.kind === "bad-request") return "bad-request";
  if (decoded.kind === "path") {
    const cacheControl = site.immutable ? REVISION_CACHE : PRODUCTION_CACHE;
    for (const path of candidatePaths(decoded.path)) {
      const file = lookup.findFile(site.projectSlug, site.revisionId, path);
      if (file) return fileAnswer(file, 200, cacheControl);
    }
  }
  const page = lookup.findFile(site.projectSlug, site.revisionId, "/404.html");
  return page ? fileAnswer(page, 404, NO_STORE) : "not-found";
}
