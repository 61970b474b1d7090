import { existsSync } from "node:fs";
import { sql } from "kysely";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { MIB } from "../../src/core/formats.js";
import { collectGarbage } from "../../src/platform/selfhost/maintenance/garbage-collector.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

/**
 * Every compression the edge starts, counted where it happens: node:zlib, wrapped. What the edge
 * does with zlib is its own business; how often and how many at once is what issue 14 (item 5)
 * is about.
 */
const zlibUse = vi.hoisted(() => ({ started: [] as string[], running: 0, mostAtOnce: 0 }));

vi.mock("node:zlib", async (importOriginal) => {
  const zlib = await importOriginal<typeof import("node:zlib")>();
  const start = (name: string) => {
    zlibUse.started.push(name);
    zlibUse.running++;
    zlibUse.mostAtOnce = Math.max(zlibUse.mostAtOnce, zlibUse.running);
    let done = false;
    return () => {
      if (!done) zlibUse.running--;
      done = true;
    };
  };
  type Callback = (error: Error | null, result: Buffer) => void;
  const oneShot =
    (name: string, original: (input: Buffer, options: object, callback: Callback) => void) =>
    (input: Buffer, options: object, callback: Callback) => {
      const done = start(name);
      original(input, options, (error, result) => {
        done();
        callback(error, result);
      });
    };
  const stream =
    <T extends NodeJS.EventEmitter>(name: string, original: (options?: object) => T) =>
    (options?: object): T => {
      const done = start(name);
      const created = original(options);
      created.once("close", done);
      created.once("end", done);
      created.once("error", done);
      return created;
    };
  const wrapped = {
    ...zlib,
    brotliCompress: oneShot("br", zlib.brotliCompress as never),
    gzip: oneShot("gzip", zlib.gzip as never),
    createBrotliCompress: stream("br", zlib.createBrotliCompress),
    createGzip: stream("gzip", zlib.createGzip),
  };
  return { ...wrapped, default: wrapped };
});

const HOST = "blue-fox-k3.sites.test";
/** Text that compresses well: a stylesheet in memory range, and pages streamed from disk. */
const css = Buffer.from("body { color: rebeccapurple; margin: 0 auto; }\n".repeat(4000));
const page = (n: number) =>
  Buffer.from(`<p>large page ${n}</p>\n`.repeat(Math.ceil((4 * MIB) / 20)).slice(0, 4 * MIB));

describe("compression costs at the edge", () => {
  let edge: TestEdge;
  beforeEach(async () => {
    // Files up to 1 MiB are held in memory; the 4 MiB pages are streamed from disk.
    edge = await startTestEdge({ cacheFileBytes: MIB, maxCompressions: 2 });
    const files: Record<string, Buffer> = { "/style.css": css };
    for (let n = 0; n < 12; n++) files[`/page-${n}.html`] = page(n);
    await edge.publish({ slug: "blue-fox-k3", revisionId: "bbbbbbbbb2", files });
    zlibUse.started.length = 0;
    zlibUse.mostAtOnce = 0;
  });
  afterEach(async () => {
    expect(edge.errors).toEqual([]);
    await edge.close();
  });

  it("HEAD: compresses nothing, with or without Accept-Encoding", async () => {
    for (const path of ["/style.css", "/page-0"]) {
      const variants: Record<string, string>[] = [
        {},
        { "accept-encoding": "br" },
        { "accept-encoding": "gzip" },
      ];
      for (const headers of variants) {
        const reply = await edge.get(HOST, path, headers, "HEAD");
        expect(reply.status, path).toBe(200);
        expect(reply.body.length).toBe(0);
      }
    }
    expect(zlibUse.started).toEqual([]);
  });

  it("GET: makes only the coding the request asks for, and none without Accept-Encoding", async () => {
    const plain = await edge.get(HOST, "/style.css");
    expect(plain.body.equals(css)).toBe(true);
    expect(zlibUse.started).toEqual([]);
    const gz = await edge.get(HOST, "/style.css", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).equals(css)).toBe(true);
    expect(zlibUse.started).toEqual(["gzip"]);
  });

  it("GET: a file in memory is compressed once for its coding, validated requests and 304s included; a 304 before it is made compresses nothing", async () => {
    const gzip = { "accept-encoding": "gzip" };
    const etag = (await edge.get(HOST, "/style.css", gzip, "HEAD")).headers.etag as string;
    expect(etag).toMatch(/-gz"$/);
    expect((await edge.get(HOST, "/style.css", { ...gzip, "if-none-match": etag })).status).toBe(304);
    expect(zlibUse.started).toEqual([]);
    const whole = await edge.get(HOST, "/style.css", gzip);
    expect(gunzipSync(whole.body).equals(css)).toBe(true);
    // A validator that does not match takes the general path, where the variant made is reused.
    const validated = await edge.get(HOST, "/style.css", { ...gzip, "if-none-match": '"other"' });
    expect([validated.status, validated.headers["content-encoding"]]).toEqual([200, "gzip"]);
    expect(validated.body.equals(whole.body)).toBe(true);
    expect((await edge.get(HOST, "/style.css", { ...gzip, "if-none-match": etag })).status).toBe(304);
    expect(zlibUse.started).toEqual(["gzip"]);
  });

  it("GET: a 4 MiB page is compressed once, however many requests ask for it", async () => {
    for (let i = 0; i < 5; i++) {
      const reply = await edge.get(HOST, "/page-0", { "accept-encoding": "br" });
      expect(reply.headers["content-encoding"]).toBe("br");
      expect(brotliDecompressSync(reply.body).equals(page(0))).toBe(true);
    }
    expect(zlibUse.started).toEqual(["br"]);
  });

  it("GET: 24 requests at once for one page share one compression", async () => {
    const replies = await Promise.all(
      Array.from({ length: 24 }, () => edge.get(HOST, "/page-1", { "accept-encoding": "gzip" })),
    );
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      const body = reply.headers["content-encoding"] === "gzip" ? gunzipSync(reply.body) : reply.body;
      expect(body.equals(page(1))).toBe(true);
    }
    expect(zlibUse.started).toEqual(["gzip"]);
  });

  it("GET: compressions of different files at once are capped (maxCompressions 2); the rest are sent as they are", async () => {
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, n) => edge.get(HOST, `/page-${n}`, { "accept-encoding": "gzip" })),
    );
    replies.forEach((reply, n) => {
      expect(reply.status).toBe(200);
      const body = reply.headers["content-encoding"] === "gzip" ? gunzipSync(reply.body) : reply.body;
      expect(body.equals(page(n)), `page ${n}`).toBe(true);
    });
    expect(zlibUse.mostAtOnce).toBeLessThanOrEqual(2);
    expect(zlibUse.started.length).toBeGreaterThanOrEqual(1);
  });

  it("GET: a variant's file is deleted with its blob", async () => {
    await edge.get(HOST, "/page-2", { "accept-encoding": "br" });
    const hash = await hashAsset(page(2), "/page-2.html");
    expect(existsSync(edge.packs.variantPath(hash, "br"))).toBe(true);
    await sql`DELETE FROM manifest_files WHERE hash = ${hash}`.execute(edge.db.db);
    await sql`DELETE FROM manifest_hashes WHERE hash = ${hash}`.execute(edge.db.db);
    expect((await collectGarbage(edge.db, edge.files, Date.now())).blobsDeleted).toBe(1);
    expect(existsSync(edge.packs.variantPath(hash, "br"))).toBe(false);
  });
});
