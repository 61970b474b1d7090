import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";
const CSS = "p { margin: 0 auto; color: #123456 } ".repeat(120);

describe("edge answer paths", () => {
  let edge: TestEdge | undefined;
  afterEach(async () => {
    await edge?.close();
    edge = undefined;
  });

  async function start(options: Parameters<typeof startTestEdge>[0]): Promise<TestEdge> {
    edge = await startTestEdge(options);
    await edge.publish({
      slug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      files: { "/site.css": CSS, "/empty.txt": "", "/404.html": "<h1>gone</h1>" },
    });
    return edge;
  }

  it("GET with no compression allowed: a compressible file is sent as it is, from memory or streamed", async () => {
    // Small enough for memory, then streamed from disk: both must fall back to identity.
    for (const cacheFileBytes of [1024 * 1024, 1024]) {
      const site = await start({ maxCompressions: 0, cacheFileBytes });
      const reply = await site.get(HOST, "/site.css", { "accept-encoding": "br" });
      expect(
        [reply.status, reply.headers["content-encoding"], reply.body.toString()],
        String(cacheFileBytes),
      ).toEqual([200, undefined, CSS]);
      expect(site.errors).toEqual([]);
      await site.close();
      edge = undefined;
    }
  });

  it("GET a hot compressible file: later requests, answered from memory's ready heads, keep the coding asked for", async () => {
    const site = await start({});
    for (let i = 0; i < 3; i++) {
      const reply = await site.get(HOST, "/site.css", { "accept-encoding": "br" });
      expect([reply.status, reply.headers["content-encoding"]], String(i)).toEqual([200, "br"]);
    }
  });

  it("GET Range on a missing path: the site's 404 page whole, never a 206", async () => {
    const site = await start({});
    const reply = await site.get(HOST, "/nope", { range: "bytes=0-1" });
    expect([reply.status, reply.body.toString(), reply.headers["content-range"]]).toEqual([
      404,
      "<h1>gone</h1>",
      undefined,
    ]);
  });

  it("GET an empty file streamed from disk: 200, Content-Length 0, nothing reported", async () => {
    const site = await start({ cacheBytes: 0 });
    const reply = await site.get(HOST, "/empty.txt");
    expect([reply.status, reply.headers["content-length"], reply.body.length]).toEqual([200, "0", 0]);
    expect(site.errors).toEqual([]);
  });

  it("cacheStats: a first read is a miss that keeps the blob, each later answer from memory a hit, ranged or not", async () => {
    const site = await start({});
    expect(site.cacheStats()).toEqual({ hits: 0, misses: 0, bytes: 0 });
    expect((await site.get(HOST, "/empty.txt")).status).toBe(200);
    const first = site.cacheStats();
    expect([first.hits, first.misses]).toEqual([0, 1]);
    expect(first.bytes).toBeGreaterThan(0);
    expect((await site.get(HOST, "/empty.txt")).status).toBe(200);
    expect((await site.get(HOST, "/site.css", { range: "bytes=0-3" })).status).toBe(206);
    expect((await site.get(HOST, "/site.css", { range: "bytes=4-7" })).status).toBe(206);
    expect(site.cacheStats()).toMatchObject({ hits: 2, misses: 2 });
  });

  it("GET If-None-Match of a streamed file's br tag: 304 before its variant exists, and none is made", async () => {
    const site = await start({ cacheFileBytes: 1024 });
    const etag = (await site.get(HOST, "/site.css", {}, "HEAD")).headers.etag!;
    const hash = etag.slice(1, -1);
    const reply = await site.get(HOST, "/site.css", {
      "accept-encoding": "br",
      "if-none-match": `"${hash}-br"`,
    });
    expect([reply.status, reply.headers.etag]).toEqual([304, `"${hash}-br"`]);
    expect(existsSync(site.packs.variantPath(hash, "br"))).toBe(false);
  });
});
