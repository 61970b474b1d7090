import { existsSync, readdirSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";
import { createTestProject, deleteProject, deployFiles } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { startTestServer, tempDir } from "../support/server.js";
import { databaseFiles, queryDatabase } from "../support/store-snapshot.js";
import { completeDeploy, prepareFiles } from "../support/upload-flow.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** Bytes that compress badly and differ per label, so each file is its own blob. */
function noise(label: string, size: number): string {
  let text = "";
  let state = [...label].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  while (text.length < size) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    text += state.toString(36);
  }
  return text.slice(0, size);
}

/** The pack objects under a platform's prefix, read with the AWS SDK: id to size. */
async function packObjects(settings: S3Settings): Promise<Map<string, number>> {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: true,
    credentials: settings.credentials,
  });
  try {
    const prefix = `${settings.location.prefix}packs/`;
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: settings.location.bucket, Prefix: prefix }),
    );
    return new Map(
      (page.Contents ?? []).map((object) => [
        object.Key!.slice(prefix.length, -".pack".length),
        object.Size!,
      ]),
    );
  } finally {
    client.destroy();
  }
}

/** Bytes of an object, read with the AWS SDK. */
async function objectRange(settings: S3Settings, id: string, start: number, size: number) {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: true,
    credentials: settings.credentials,
  });
  try {
    const reply = await client.send(
      new GetObjectCommand({
        Bucket: settings.location.bucket,
        Key: `${settings.location.prefix}packs/${id}.pack`,
        Range: `bytes=${start}-${start + size - 1}`,
      }),
    );
    return Buffer.from(await reply.Body!.transformToByteArray()).toString();
  } finally {
    client.destroy();
  }
}

function packRows(dataDir: string): Map<string, number> {
  const rows = queryDatabase<{ id: string; size: number }>(
    databaseFiles(dataDir).platform,
    "SELECT id, size FROM packs",
  );
  return new Map(rows.map((row) => [row.id, row.size]));
}

function blobRow(dataDir: string, hash: string): { pack: string; pack_offset: number; size: number } {
  return queryDatabase(
    databaseFiles(dataDir).platform,
    "SELECT pack, pack_offset, size FROM blobs WHERE hash = ?",
    hash,
  )[0];
}

describe("packs in an object store", () => {
  let store: TestObjectStore;
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => store.close());

  /** A server whose packs go to the store; the memory cache off, so reads reach the disk cache. */
  async function startServer(settings: S3Settings, dataDir?: string): Promise<TestServer> {
    return startTestServer({ objectStore: settings, edgeCacheBytes: 0, ...(dataDir ? { dataDir } : {}) });
  }

  it("upload: each bucket is one object of the store, named by its pack row; no pack file on the local disk", async () => {
    const settings = store.settings();
    const server = await startServer(settings);
    try {
      const p = await createTestProject(server.urls.api, "s3-upload");
      await deployFiles(server.urls.api, p, { "/index.html": "<p>in s3</p>", "/app.js": noise("app", 3000) });
      const rows = packRows(server.dataDir);
      expect(rows.size).toBe(1);
      expect(await packObjects(settings)).toEqual(rows);
      const local = join(server.dataDir, "platform", "packs");
      expect(existsSync(local) ? readdirSync(local) : []).toEqual([]);
      const home = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
      expect(home.status).toBe(200);
      expect(home.body.toString()).toBe("<p>in s3</p>");
      const part = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/app.js", {
        range: "bytes=10-19",
      });
      expect(part.status).toBe(206);
      expect(part.body.toString()).toBe(noise("app", 3000).slice(10, 20));
    } finally {
      await server.stop();
    }
  });

  it("edge: with the store down, what its disk cache holds is served (after a restart too); the rest is 503 OBJECT_STORE_UNAVAILABLE JSON", async () => {
    const settings = store.settings();
    const dir = tempDir("deploy-s3-edge-");
    try {
      let server = await startServer(settings, dir.path);
      const p = await createTestProject(server.urls.api, "s3-edge");
      // The second deploy stores only cold.txt, in a pack of its own: reading the page reads none of it.
      await deployFiles(server.urls.api, p, { "/index.html": "<p>cached</p>" });
      await deployFiles(server.urls.api, p, { "/index.html": "<p>cached</p>", "/cold.txt": "never read" });
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(200);
      await server.stop();
      await store.stop();
      try {
        server = await startServer(settings, dir.path);
        const home = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
        expect(home.status).toBe(200);
        expect(home.body.toString()).toBe("<p>cached</p>");
        const cold = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/cold.txt");
        expect(cold.status).toBe(503);
        expect(cold.headers["content-type"]).toMatch(/^application\/json/);
        expect(cold.headers["retry-after"]).toBe("5");
        expect(JSON.parse(cold.body.toString()).error.code).toBe("OBJECT_STORE_UNAVAILABLE");
        const health = await api(server.urls.api, "GET", "/healthz");
        expect(health.status).toBe(503);
        // Why it is down, in the words meant for the API's users; the cause stays in the log.
        expect(health.body).toEqual({
          status: "degraded",
          checks: { store: "ok", platform: "ok", objectStore: "down" },
          reasons: { objectStore: "the content store is unavailable, retry later" },
        });
      } finally {
        await store.start();
      }
      const back = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/cold.txt");
      expect(back.body.toString()).toBe("never read");
      const health = await api(server.urls.api, "GET", "/healthz");
      expect(health.body).toEqual({
        status: "ok",
        checks: { store: "ok", platform: "ok", objectStore: "ok" },
      });
      await server.stop();
    } finally {
      dir.cleanup();
    }
  });

  it("upload: the store down fails the bucket with 503 and records nothing; the retry once it is back completes the deploy", async () => {
    const settings = store.settings();
    const server = await startServer(settings);
    try {
      const p = await createTestProject(server.urls.api, "s3-fault");
      const files = { "/index.html": "<p>retried</p>" };
      const { prepared, byHash } = await prepareFiles(server.urls.api, p, files);
      const parts = (prepared.buckets as string[][])[0]!.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
      await store.stop();
      let refused;
      try {
        refused = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
      } finally {
        await store.start();
      }
      expect(refused.status).toBe(503);
      expect(refused.body.errors).toEqual([
        {
          code: 10010,
          message: "the content store is unavailable; nothing of this bucket was stored, send it again",
        },
      ]);
      expect(packRows(server.dataDir).size).toBe(0);
      expect(queryDatabase(databaseFiles(server.dataDir).platform, "SELECT hash FROM blobs")).toEqual([]);
      expect(readdirSync(join(server.dataDir, "platform", "tmp"))).toEqual([]);
      const retried = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
      expect(retried.status).toBe(201);
      const deployed = await completeDeploy(server.urls.api, p, prepared.deployId, retried.body.result.jwt);
      expect(deployed.status).toBe(200);
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).body.toString()).toBe(
        "<p>retried</p>",
      );
      expect(await packObjects(settings)).toEqual(packRows(server.dataDir));
    } finally {
      await server.stop();
    }
  });

  it("collection and compaction: a pack no blob lives in loses its object; a mostly dead one is rewritten into a new object", async () => {
    const settings = store.settings();
    const server = await startServer(settings);
    try {
      const a = await createTestProject(server.urls.api, "s3-gc-a");
      const b = await createTestProject(server.urls.api, "s3-gc-b");
      const kept = "kept by b";
      await deployFiles(server.urls.api, a, { "/big.txt": noise("big", 20_000), "/kept.txt": kept });
      await deployFiles(server.urls.api, b, { "/kept.txt": kept });
      const [first] = [...packRows(server.dataDir).keys()];
      const c = await createTestProject(server.urls.api, "s3-gc-c");
      await deployFiles(server.urls.api, c, { "/gone.txt": noise("gone", 5_000) });
      const third = [...packRows(server.dataDir).keys()].find((id) => id !== first)!;
      expect((await packObjects(settings)).has(third)).toBe(true);

      expect((await deleteProject(server.urls.api, c)).status).toBe(200);
      expect((await packObjects(settings)).has(third)).toBe(false);

      expect((await deleteProject(server.urls.api, a)).status).toBe(200);
      await server.platform.sweep(new Date(server.clock.now()));
      const objects = await packObjects(settings);
      expect(objects.has(first!)).toBe(false);
      expect(objects).toEqual(packRows(server.dataDir));
      const hash = queryDatabase<{ hash: string }>(
        databaseFiles(server.dataDir).platform,
        "SELECT hash FROM blobs",
      )[0]!.hash;
      const row = blobRow(server.dataDir, hash);
      expect(await objectRange(settings, row.pack, row.pack_offset, row.size)).toBe(kept);
      expect((await edgeGet(server.urls.edge, `${b.slug}.localhost`, "/kept.txt")).body.toString()).toBe(
        kept,
      );
    } finally {
      await server.stop();
    }
  });

  it("edge: a cold page of 50 assets in one pack is read from the store in a few ranged reads, not one a file", async () => {
    const settings = store.settings();
    const server = await startServer(settings);
    try {
      const p = await createTestProject(server.urls.api, "s3-cold-page");
      const assets = Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`/assets/${i}.js`, noise(`asset-${i}`, 1_000 + i * 400)]),
      );
      await deployFiles(server.urls.api, p, { "/index.html": "<p>page</p>", ...assets });
      expect(packRows(server.dataDir).size).toBe(1);
      const before = store.reads(settings.location.prefix);
      const host = `${p.slug}.localhost`;
      expect((await edgeGet(server.urls.edge, host, "/")).body.toString()).toBe("<p>page</p>");
      // As a browser fetches a page's assets: six at a time.
      const paths = Object.keys(assets);
      for (let i = 0; i < paths.length; i += 6) {
        await Promise.all(
          paths.slice(i, i + 6).map(async (path) => {
            const reply = await edgeGet(server.urls.edge, host, path);
            expect(reply.body.toString(), path).toBe(assets[path]);
          }),
        );
      }
      // The pack (~0.55 MB) lies in one block of the read ahead: one request, where it took 51.
      expect(store.reads(settings.location.prefix) - before).toBe(1);
    } finally {
      await server.stop();
    }
  });

  it("edge: a store that takes connections and never answers is 503 once OBJECT_STORE_TIMEOUT_SECONDS is up, not a hang", async () => {
    const settings = store.settings();
    const dir = tempDir("deploy-s3-silent-");
    // Accepts every connection and never says a word.
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      let server = await startServer(settings, dir.path);
      const p = await createTestProject(server.urls.api, "s3-silent");
      await deployFiles(server.urls.api, p, { "/index.html": "<p>home</p>" });
      await server.stop();
      const port = (silent.address() as { port: number }).port;
      server = await startServer(
        { ...settings, endpoint: `http://127.0.0.1:${port}`, timeoutMs: 300 },
        dir.path,
      );
      try {
        const started = Date.now();
        const home = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
        expect(home.status).toBe(503);
        expect(JSON.parse(home.body.toString()).error.code).toBe("OBJECT_STORE_UNAVAILABLE");
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(held.length).toBeGreaterThan(0);
      } finally {
        await server.stop();
      }
    } finally {
      for (const socket of held) socket.destroy();
      silent.close();
      dir.cleanup();
    }
  });
});
