import type { OutgoingHttpHeaders } from "node:http";
import { encodePath, type HeaderChanges, HEADERS_FILE, REDIRECTS_FILE } from "../core/site-rules/index.js";
import type { EdgeStorage, SiteTarget, StoredFile } from "./edge-storage.js";
import { fileAnswer, type FileAnswer } from "./file-response.js";
import { NO_STORE } from "./plain-response.js";
import { candidatePaths, decodePath, requestTarget } from "./request-path.js";

/** A redirect: `_redirects`' 3xx rules and the canonical URLs (308). */
export interface Redirect {
  kind: "redirect";
  status: 301 | 302 | 303 | 307 | 308;
  location: string;
  fields: OutgoingHttpHeaders;
}

/** A missing path of a single-page app: its `/index.html` for navigations (Accept: text/html), else 404. */
export interface AppFallback {
  kind: "app";
  page: FileAnswer;
  /** The plain 404's fields when `_headers` rules match the path (else the edge's defaults). */
  missFields?: OutgoingHttpHeaders;
}

/** A plain 404 whose path `_headers` rules match: its fields. */
export interface PlainMiss {
  kind: "not-found";
  fields: OutgoingHttpHeaders;
}

/** Where a request target of a site leads: a file (or the site's 404 page), a redirect, the app's page, a 400 or a plain 404. */
export type Route = FileAnswer | Redirect | AppFallback | PlainMiss | "bad-request" | "not-found";

// A production page can change with any publish: browsers must ask again every time (a 304 is cheap).
const PRODUCTION_CACHE = "public, max-age=0, must-revalidate";
// A revision host's content never changes for as long as it is served.
const REVISION_CACHE = "public, max-age=31536000, immutable";
const RULES_FILES = new Set([`/${REDIRECTS_FILE}`, `/${HEADERS_FILE}`]);

/**
 * Routes a request target (origin-form, query included) of a site, in this order: `_redirects`'
 * 3xx rules (always followed, as Cloudflare Pages does); the file, its extensionless or index form,
 * or a 308 to the canonical URL of that file; `_redirects`' 200 rewrites (only where no file
 * answers, so `/* /index.html 200` never hides an asset); the nearest `404.html` up the tree; the
 * app fallback when there is none and the site has an `/index.html`. `_redirects` and `_headers`
 * themselves are never served. A path no file can answer (an encoded slash, an empty segment) is matched against the rules as
 * sent, as Cloudflare does. `_headers` apply to every answer, redirects and 404s included.
 */
export async function routeOf(lookup: EdgeStorage, site: SiteTarget, target: string): Promise<Route> {
  const rawPath = requestTarget(target, undefined)!.rawPath;
  const decoded = decodePath(rawPath);
  if (decoded.kind === "bad-request") return "bad-request";
  const rules = await lookup.rulesOf(site.projectSlug, site.revisionId);
  const find = async (path: string): Promise<StoredFile | undefined> =>
    RULES_FILES.has(path) ? undefined : lookup.findFile(site.projectSlug, site.revisionId, path);
  const path = decoded.kind === "path" ? decoded.path : undefined;
  const rulePath = path ?? rawPath;
  const changes = rules.empty ? undefined : rules.headersFor(rulePath, path === undefined);
  const serve = (file: StoredFile, status: 200 | 404): FileAnswer =>
    fileAnswer(file, status, fieldsOf(site, file, status, changes), site.publishedAt);
  const query = queryOf(target, rawPath);
  const ruled = rules.empty ? undefined : rules.redirectFor(rulePath, query, path === undefined);
  if (ruled) return redirect(site, ruled.status, ruled.location, changes);
  if (path !== undefined) {
    const found = await canonical(path, find);
    if (found?.kind === "file") return serve(found.file, 200);
    if (found?.kind === "move") return redirect(site, 308, encodePath(found.path) + query, changes);
    const rewrite = rules.empty ? undefined : rules.rewriteFor(path);
    if (rewrite !== undefined) {
      for (const candidate of candidatePaths(rewrite)) {
        const file = await find(candidate);
        if (file) return serve(file, 200);
      }
    }
  }
  const page = await nearestNotFoundPage(path ?? "/", find);
  if (page) return serve(page, 404);
  const index = await find("/index.html");
  const missFields = changes === undefined ? undefined : missFieldsOf(changes);
  if (index) {
    // The app's page is `/` answering at another URL: `/`'s `_headers`, as on Cloudflare.
    const home = rules.empty ? undefined : rules.headersFor("/");
    const shell = fileAnswer(index, 200, fieldsOf(site, index, 200, home), site.publishedAt);
    return { kind: "app", page: shell, ...(missFields ? { missFields } : {}) };
  }
  return missFields ? { kind: "not-found", fields: missFields } : "not-found";
}

/** The `404.html` nearest up the tree from `path` (`/a/b/c` asks `/a/b/`, `/a/`, `/`), as Cloudflare does. */
async function nearestNotFoundPage(
  path: string,
  find: (path: string) => Promise<StoredFile | undefined>,
): Promise<StoredFile | undefined> {
  for (let end = path.lastIndexOf("/"); end >= 0; end = path.lastIndexOf("/", end - 1)) {
    const page = await find(`${path.slice(0, end)}/404.html`);
    if (page || end === 0) return page;
  }
  return undefined;
}

/** The query of an origin-form target with its `?`, or "". */
function queryOf(target: string, rawPath: string): string {
  const rest = target.slice(rawPath.length);
  const hash = rest.indexOf("#");
  const query = hash === -1 ? rest : rest.slice(0, hash);
  return query === "?" ? "" : query;
}

type Found = { kind: "file"; file: StoredFile } | { kind: "move"; path: string } | undefined;

/**
 * The file a path serves, or the canonical path to move to, as Cloudflare Pages' auto-trailing-slash
 * does: `/a.html` → `/a`, `/d/index.html` and `/d/index` → `/d/`, `/d` (a folder with an index) → `/d/`,
 * `/a/` (no such folder, but `/a.html`) → `/a`. A file and a folder of the same name: the file wins.
 */
export async function canonical(
  path: string,
  find: (path: string) => Promise<StoredFile | undefined>,
): Promise<Found> {
  if (path.endsWith("/")) {
    const index = await find(`${path}index.html`);
    if (index) return { kind: "file", file: index };
    const bare = path.slice(0, -1);
    if (bare !== "" && !bare.endsWith("/") && (await find(`${bare}.html`)))
      return { kind: "move", path: bare };
    return undefined;
  }
  const exact = await find(path);
  if (exact) {
    if (path.endsWith("/index.html")) return { kind: "move", path: path.slice(0, -"index.html".length) };
    const bare = path.endsWith(".html") ? path.slice(0, -".html".length) : undefined;
    if (bare !== undefined && !bare.endsWith("/") && (await find(bare)) === undefined) {
      return { kind: "move", path: bare };
    }
    return { kind: "file", file: exact };
  }
  const page = await find(`${path}.html`);
  if (page) {
    return path.endsWith("/index")
      ? { kind: "move", path: path.slice(0, -"index".length) }
      : { kind: "file", file: page };
  }
  if (await find(`${path}/index.html`)) return { kind: "move", path: `${path}/` };
  return undefined;
}

function redirect(
  site: SiteTarget,
  status: Redirect["status"],
  location: string,
  changes: HeaderChanges | undefined,
): Redirect {
  const fields: OutgoingHttpHeaders = {
    location,
    "cache-control": site.immutable ? REVISION_CACHE : PRODUCTION_CACHE,
  };
  applyChanges(fields, changes);
  if (site.immutable || site.preview === true) fields["x-robots-tag"] = "noindex";
  return { kind: "redirect", status, location, fields };
}

/** A plain 404's fields under `_headers`: never kept, never sniffed, whatever the rules say. */
function missFieldsOf(changes: HeaderChanges): OutgoingHttpHeaders {
  const fields: OutgoingHttpHeaders = {};
  applyChanges(fields, changes);
  fields["cache-control"] = NO_STORE;
  return fields;
}

/** Sets and removes what `_headers` says; `X-Content-Type-Options: nosniff` stays (SECURITY.md). */
function applyChanges(fields: OutgoingHttpHeaders, changes: HeaderChanges | undefined): void {
  if (!changes) return;
  for (const [name, value] of changes.set) fields[name] = value;
  for (const name of changes.remove) delete fields[name];
  if (fields["x-content-type-options"] !== undefined || changes.remove.has("x-content-type-options"))
    fields["x-content-type-options"] = "nosniff";
}

/**
 * A file response's own fields: the edge's defaults (Cloudflare Pages' safe ones for static
 * content), then what `_headers` sets or removes. Whatever `_headers` says, every file is
 * `X-Content-Type-Options: nosniff`, a 404 page is never kept (`no-store`), and a revision host is
 * never indexed (`X-Robots-Tag: noindex`).
 */
function fieldsOf(
  site: SiteTarget,
  file: StoredFile,
  status: 200 | 404,
  changes: HeaderChanges | undefined,
): OutgoingHttpHeaders {
  const fields: OutgoingHttpHeaders = {
    "x-content-type-options": "nosniff",
    "content-type": file.contentType,
    "cache-control": site.immutable ? REVISION_CACHE : PRODUCTION_CACHE,
    "referrer-policy": "strict-origin-when-cross-origin",
    "access-control-allow-origin": "*",
  };
  if (status === 200) fields["last-modified"] = new Date(site.publishedAt).toUTCString();
  applyChanges(fields, changes);
  // The platform promises nosniff on every answer (SECURITY.md): a site may not take it away.
  fields["x-content-type-options"] = "nosniff";
  if (status === 404) fields["cache-control"] = NO_STORE;
  if (site.immutable || site.preview === true) fields["x-robots-tag"] = "noindex";
  return fields;
}
