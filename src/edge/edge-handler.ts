import type { IncomingMessage, ServerResponse } from "node:http";
import { BlobCache } from "./blob-cache.js";
import type { EdgeStorage, SiteTarget } from "./edge-storage.js";
import { sendFile, type BlobSource } from "./file-response.js";
import { refusalOf } from "./http-exactness.js";
import { DatabaseUnavailableError, ObjectStoreUnavailableError } from "../core/errors.js";
import { isDatabaseUnavailable } from "../shared/database/postgres-errors.js";
import { sendPlain, sendServerError } from "./plain-response.js";
import { canonicalLink } from "./canonical-link.js";
import { decodePath, requestTarget } from "./request-path.js";
import { RouteMemo } from "./route-memo.js";
import { routeOf, type Route } from "./site-router.js";
import { VariantMaker } from "./variants.js";

export interface EdgeOptions {
  /** The published sites, their blobs, and where compressed variants of large blobs are kept. */
  storage: EdgeStorage;
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

/**
 * A Node request listener: `http.createServer(createEdgeHandler(...))`, which also tells how its
 * memory cache has done (for /metrics).
 */
export type EdgeHandler = ((req: IncomingMessage, res: ServerResponse) => void | Promise<void>) & {
  cacheStats(): { hits: number; misses: number; bytes: number };
};

/**
 * The built-in edge: serves published sites by Host (contract §7). It never throws and never
 * rejects; a failure is answered with a plain 500 (503 JSON when the content store is unavailable)
 * and reported to `onError`.
 */
export function createEdgeHandler(options: EdgeOptions): EdgeHandler {
  const sites: Sites = { lookup: options.storage, routes: new RouteMemo(options.maxRoutes) };
  const cache = new BlobCache({ maxBytes: options.cacheBytes, maxEntryBytes: options.cacheFileBytes });
  const source: BlobSource = {
    cache,
    storage: options.storage,
    variants: new VariantMaker(cache, options.storage, options.maxCompressions),
  };
  const report = options.onError ?? ((error: unknown) => console.error("edge: request failed:", error));
  const fail = (res: ServerResponse, error: unknown): void => {
    try {
      report(error);
    } catch {
      // A failing reporter must not take the response down with it.
    }
    try {
      sendServerError(res, unavailableOf(error));
    } catch {
      res.destroy();
    }
  };
  // Returns nothing when the answer was given within the call (a remembered route of a blob in
  // memory: no promise is made for it), else a promise that resolves once the request is done
  // with, its body sent or its failure answered, and never rejects. Node ignores it; a caller
  // that must know when the edge has finished (a test) awaits it.
  const handler = (req: IncomingMessage, res: ServerResponse): void | Promise<void> => {
    try {
      const pending = serve(req, res, sites, source);
      if (pending) return pending.catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  };
  return Object.assign(handler, { cacheStats: () => ({ ...cache.counts, bytes: cache.size }) });
}

/** What the edge knows of the published sites: the storage's lookups and its own route memo. */
interface Sites {
  lookup: EdgeStorage;
  routes: RouteMemo;
}

const SLASH = 0x2f;

/** Answers a request; a promise only when it must wait for the storage. */
function serve(
  req: IncomingMessage,
  res: ServerResponse,
  sites: Sites,
  source: BlobSource,
): void | Promise<void> {
  const refusal = refusalOf(req);
  if (refusal) return sendPlain(res, refusal.status, refusal.message, { connection: "close" });
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
    target = absolute.rawPath + absolute.query;
  }
  const site = host === undefined ? undefined : sites.lookup.lookupSite(host);
  if (site instanceof Promise) return site.then((found) => serveSite(req, res, sites, source, found, target));
  return serveSite(req, res, sites, source, site, target);
}

/** Answers a request for `target` of the site its host serves (undefined: none). */
function serveSite(
  req: IncomingMessage,
  res: ServerResponse,
  sites: Sites,
  source: BlobSource,
  site: SiteTarget | undefined,
  target: string,
): void | Promise<void> {
  if (!site) {
    // A malformed path is a 400 whether or not the host serves anything.
    const bad = decodePath(requestTarget(target, undefined)!.rawPath).kind === "bad-request";
    return bad ? sendPlain(res, 400, "Bad Request") : sendPlain(res, 404, "Not Found");
  }
  const route = sites.routes.get(site, target);
  if (route !== undefined) return answer(req, res, source, site, target, route);
  return routeOf(sites.lookup, site, target).then((found) => {
    sites.routes.set(site, target, found);
    return answer(req, res, source, site, target, found);
  });
}

/** Sends what a route says: a file, a redirect, the app's page or a plain answer. */
function answer(
  req: IncomingMessage,
  res: ServerResponse,
  source: BlobSource,
  site: SiteTarget,
  target: string,
  route: Route,
): void | Promise<void> {
  if (route === "bad-request") return sendPlain(res, 400, "Bad Request");
  if (route === "not-found") return sendPlain(res, 404, "Not Found");
  if (route.kind === "not-found") return sendPlain(res, 404, "Not Found", route.fields);
  if (route.kind === "redirect")
    return sendPlain(res, route.status, REDIRECT_TEXT[route.status], route.fields);
  // A site with a custom domain names it as canonical on its other hostnames (the generated one).
  if (site.canonicalUrl !== undefined) {
    const path = requestTarget(target, undefined)!.rawPath;
    res.setHeader("link", canonicalLink(site.canonicalUrl, path));
  }
  if (route.kind === "app") {
    return acceptsHtml(req)
      ? sendFile(req, res, source, route.page)
      : sendPlain(res, 404, "Not Found", route.missFields);
  }
  return sendFile(req, res, source, route);
}

const REDIRECT_TEXT = {
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
} as const;

/** A navigation asks for HTML; an image, a script or an API call does not, and gets the 404. */
function acceptsHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return accept !== undefined && accept.toLowerCase().includes("text/html");
}

/** The dependency a failure says is down (the content store, the database), for a 503; else undefined. */
function unavailableOf(error: unknown): ObjectStoreUnavailableError | DatabaseUnavailableError | undefined {
  if (error instanceof ObjectStoreUnavailableError || error instanceof DatabaseUnavailableError) return error;
  return isDatabaseUnavailable(error) ? new DatabaseUnavailableError({ cause: error }) : undefined;
}
