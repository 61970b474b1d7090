import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { hashAsset } from "../../src/core/asset-hash.js";
import { parseSiteRules } from "../../src/core/site-rules/index.js";
import { edgeGet } from "./http.js";
import { addRevisionFile } from "./revision-files.js";
import { mediaTypeFor } from "../../src/shared/media-types.js";
import { BlobReader } from "../../src/platform/selfhost/content/blob-reader.js";
import type { ContentFiles } from "../../src/platform/selfhost/maintenance/garbage-collector.js";
import { SelfHostedEdgeStorage } from "../../src/platform/selfhost/adapters/selfhost-edge-storage.js";
import { DiskPackStorage } from "../../src/platform/selfhost/content/disk/disk-pack-storage.js";
import { ContentDirectory } from "../../src/platform/selfhost/content/content-directory.js";
import {
  openPlatformDatabase,
  type PlatformDatabase,
} from "../../src/platform/selfhost/state/sqlite-database.js";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";
import { manifestWritten } from "../../src/platform/selfhost/sites/manifest-generation.js";
import { SiteTables } from "../../src/platform/selfhost/sites/site-tables.js";
import { createEdgeHandler, type EdgeOptions } from "../../src/edge/edge-handler.js";
import { answerClientError } from "../../src/edge/http-exactness.js";

/**
 * Test support for the edge: a real platform database and blob store in a temporary directory, a
 * real edge listening on 127.0.0.1, and rows written with plain SQL in the columns publishing uses.
 */

export const SITES_DOMAIN = "sites.test";
export const DAY = 24 * 60 * 60 * 1000;

export interface SiteContent {
  slug: string;
  revisionId: string;
  /** Site-relative paths (starting with `/`) to their bytes. */
  files: Record<string, string | Uint8Array>;
  /** Production hostnames; default the generated one. */
  hostnames?: string[];
  expiresAt?: number;
  /** The revision's publish time (its files' Last-Modified); default the edge clock's now. */
  publishedAt?: number;
}

export interface EdgeReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TestEdge {
  db: PlatformDatabase;
  /** The storage the edge was handed (unless the test handed it another). */
  storage: SelfHostedEdgeStorage;
  packs: ContentDirectory;
  /** The pack files and open packs, as a collection removes them. */
  files: ContentFiles;
  /** Where a blob's bytes are: its pack's file and the range in it. */
  blobFile(hash: string): Promise<{ path: string; offset: number; size: number }>;
  /** The edge's clock: set `clock.now` to move time. */
  clock: { now: number };
  errors: unknown[];
  /**
   * Resolves once every connection the edge has accepted is closed and every request it took is
   * finished: what an aborted request leaves behind (an error reported late) has happened.
   */
  settled(): Promise<void>;
  /** The edge's memory cache: lookups answered from it, lookups that read the blob, bytes held. */
  cacheStats(): { hits: number; misses: number; bytes: number };
  port: number;
  /** Stores bytes as a blob in a pack of its own, the way uploads do, and returns its asset hash. */
  addBlob(bytes: string | Uint8Array, path: string): Promise<string>;
  /** Writes a revision's files and makes it the site's production revision. */
  publish(site: SiteContent): Promise<void>;
  /**
   * Publishes through the platform's real writer (`SiteTables`), as an upload session would:
   * the files become the session's rows, then the revision is published from them.
   */
  publishThroughTables(
    slug: string,
    revisionId: string,
    files: Record<string, string>,
    hostnames: string[],
  ): Promise<void>;
  /** Writes a revision's files without publishing it. */
  addRevision(site: Pick<SiteContent, "slug" | "revisionId" | "files" | "publishedAt">): Promise<void>;
  /** Sends a request with an explicit Host header (none when `host` is undefined). */
  get(
    host: string | undefined,
    path: string,
    headers?: Record<string, string>,
    method?: string,
  ): Promise<EdgeReply>;
  /**
   * Sends raw bytes and returns the raw response text once the server closes the connection, for
   * request lines no client would send.
   */
  raw(text: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts an edge over a fresh temporary directory (its database there, or on `postgres`). */
export async function startTestEdge(
  settings: Partial<EdgeOptions> & { postgres?: PostgresOptions } = {},
): Promise<TestEdge> {
  const { postgres, ...options } = settings;
  const dir = mkdtempSync(join(tmpdir(), "edge-test-"));
  const db = await openPlatformDatabase(dir, postgres);
  const q = db.db;
  const packs = new ContentDirectory(dir);
  const storage = new DiskPackStorage(dir);
  const files: ContentFiles = { packs, storage };
  const reader = new BlobReader(db, packs, storage);
  const clock = { now: Date.now() };
  const errors: unknown[] = [];
  const edgeStorage = new SelfHostedEdgeStorage(
    { db, reader, content: packs },
    { sitesDomain: SITES_DOMAIN, now: () => clock.now },
  );
  const handler = createEdgeHandler({
    storage: edgeStorage,
    onError: (error) => errors.push(error),
    ...options,
  });
  // Node answers a missing Host with its own bare 400 unless told otherwise; the edge answers itself.
  // What the edge is still busy with: its open connections and the requests it has not finished.
  const busy = new Set<Promise<unknown>>();
  const track = (work: void | Promise<unknown>) => {
    if (!work) return;
    busy.add(work);
    void work.finally(() => busy.delete(work));
  };
  const server: Server = createServer({ requireHostHeader: false }, (req, res) => track(handler(req, res)));
  server.on("connection", (socket: Socket) => track(new Promise((resolve) => socket.once("close", resolve))));
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const addBlob = async (bytes: string | Uint8Array, path: string): Promise<string> => {
    const data = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
    const hash = await hashAsset(data, path);
    const held = await sql`SELECT 1 AS held FROM blobs WHERE hash = ${hash}`.execute(q);
    if (held.rows.length > 0) return hash;
    const writer = packs.newWriter();
    await writer.append(data);
    const pack = await storage.commit(writer);
    await sql`INSERT INTO packs (id, size, live_bytes, created_at)
      VALUES (${pack.id}, ${pack.size}, ${pack.size}, ${Date.now()})`.execute(q);
    await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset)
      VALUES (${hash}, ${data.length}, ${Date.now()}, ${pack.id}, 0)`.execute(q);
    return hash;
  };

  const blobFile = async (hash: string): Promise<{ path: string; offset: number; size: number }> => {
    const { rows } = await sql<{ pack: string; pack_offset: number; size: number }>`SELECT pack,
      pack_offset, size FROM blobs WHERE hash = ${hash}`.execute(q);
    const row = rows[0]!;
    return { path: storage.pathOf(row.pack), offset: Number(row.pack_offset), size: Number(row.size) };
  };

  const addRevision = async (
    site: Pick<SiteContent, "slug" | "revisionId" | "files" | "publishedAt">,
  ): Promise<void> => {
    const rows: [string, string][] = [];
    for (const [path, bytes] of Object.entries(site.files)) rows.push([path, await addBlob(bytes, path)]);
    await sql`INSERT INTO revisions (project_slug, revision_id, created_at)
      VALUES (${site.slug}, ${site.revisionId}, ${site.publishedAt ?? clock.now})`.execute(q);
    for (const [path, hash] of rows) {
      const file = { path, hash, contentType: mediaTypeFor(path) };
      await addRevisionFile(q, { project: site.slug, revision: site.revisionId, ...file });
    }
    // As publishing does: the rules files are parsed once and kept beside the revision's files.
    const text = (path: string) => {
      const bytes = site.files[path];
      return bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8");
    };
    const rules = { redirects: text("/_redirects"), headers: text("/_headers") };
    if (rules.redirects !== undefined || rules.headers !== undefined) {
      await sql`INSERT INTO revision_rules (project_slug, revision_id, rules)
        VALUES (${site.slug}, ${site.revisionId}, ${JSON.stringify(parseSiteRules(rules))})`.execute(q);
    }
    manifestWritten(db);
  };

  const publish = async (site: SiteContent): Promise<void> => {
    await addRevision(site);
    const expiresAt = site.expiresAt ?? clock.now + 30 * DAY;
    await sql`INSERT INTO sites (project_slug, revision_id, expires_at)
      VALUES (${site.slug}, ${site.revisionId}, ${expiresAt})
      ON CONFLICT (project_slug) DO UPDATE SET revision_id = excluded.revision_id,
        expires_at = excluded.expires_at`.execute(q);
    const hostnames = site.hostnames ?? [`${site.slug}.${SITES_DOMAIN}`];
    for (const hostname of hostnames) {
      await sql`INSERT INTO site_hosts (hostname, project_slug) VALUES (${hostname}, ${site.slug})
        ON CONFLICT (hostname) DO UPDATE SET project_slug = excluded.project_slug`.execute(q);
    }
    manifestWritten(db);
  };

  const get = (
    host: string | undefined,
    path: string,
    headers: Record<string, string> = {},
    method = "GET",
  ): Promise<EdgeReply> => edgeGet(`http://127.0.0.1:${port}`, host, path, headers, method);

  // Written without half-closing: Node's server may drop a request whose client ended its side
  // first (an empty answer, now and then). The request must make the server close (HTTP/1.0, or
  // `Connection: close`).
  const raw = (text: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(text));
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
      socket.on("error", reject);
    });

  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await storage.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  };

  const tables = new SiteTables(db);
  let sessions = 0;
  const publishThroughTables = async (
    slug: string,
    revisionId: string,
    files: Record<string, string>,
    hostnames: string[],
  ): Promise<void> => {
    const sessionId = `session-${++sessions}`;
    for (const [path, text] of Object.entries(files)) {
      const hash = await addBlob(text, path);
      await sql`INSERT INTO session_assets (session_id, path, hash, size, content_type)
        VALUES (${sessionId}, ${path}, ${hash}, ${Buffer.byteLength(text)}, ${mediaTypeFor(path)})`.execute(
        q,
      );
    }
    await tables.publish({
      projectSlug: slug,
      revisionId,
      sessionId,
      hostnames,
      expiresAt: clock.now + 30 * DAY,
      now: clock.now,
    });
  };

  return {
    db,
    storage: edgeStorage,
    packs,
    files,
    blobFile,
    clock,
    errors,
    cacheStats: () => handler.cacheStats(),
    settled: async () => {
      while (busy.size > 0) await Promise.all(busy);
    },
    port,
    addBlob,
    publish,
    publishThroughTables,
    addRevision,
    get,
    raw,
    close,
  };
}
