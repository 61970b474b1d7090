import { rmSync, writeFileSync } from "node:fs";
import { sql } from "kysely";
import { connect } from "node:net";
import { brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { MIB } from "../../src/core/formats.js";
import { startTestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";

describe("edge blob failures and memory", () => {
  it("GET hot small file: answered from memory once loaded", async () => {
    const edge = await startTestEdge();
    try {
      await edge.publish({
        slug: "blue-fox-k3",
        revisionId: "bbbbbbbbb2",
        files: { "/index.html": "cached" },
      });
      expect((await edge.get(HOST, "/")).body.toString()).toBe("cached");
      rmSync((await edge.blobFile(await hashAsset(Buffer.from("cached"), "/index.html"))).path);
      expect((await edge.get(HOST, "/")).body.toString()).toBe("cached");
    } finally {
      await edge.close();
    }
  });

  it.each([
    { mode: "memory cache", options: {} },
    { mode: "disk streaming", options: { cacheBytes: 0 } },
    { mode: "large file", options: { cacheFileBytes: 1 } },
  ])(
    "GET missing or damaged blob: plain 500 without internals, edge keeps serving ($mode)",
    async ({ options }) => {
      const edge = await startTestEdge(options);
      try {
        const files = { "/index.html": "fine", "/gone.html": "gone", "/short.html": "truncated later" };
        await edge.publish({ slug: "blue-fox-k3", revisionId: "bbbbbbbbb2", files });
        const gone = await hashAsset(Buffer.from(files["/gone.html"]), "/gone.html");
        const short = await hashAsset(Buffer.from(files["/short.html"]), "/short.html");
        rmSync((await edge.blobFile(gone)).path);
        writeFileSync((await edge.blobFile(short)).path, "x");
        for (const path of ["/gone", "/short"]) {
          const reply = await edge.get(HOST, path, { "accept-encoding": "br" });
          expect(reply.status, path).toBe(500);
          expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
          expect(reply.headers["x-content-type-options"]).toBe("nosniff");
          expect(reply.body.toString()).toBe("Internal Server Error\n");
        }
        expect(edge.errors.length).toBe(2);
        expect((await edge.get(HOST, "/")).body.toString()).toBe("fine");
        // Marked, so that the next prepare asks for them again; the whole one is not.
        const { rows } = await sql<{
          hash: string;
        }>`SELECT hash FROM blobs WHERE damaged = 1 ORDER BY hash`.execute(edge.db.db);
        expect(rows.map((row) => row.hash)).toEqual([gone, short].sort());
      } finally {
        await edge.close();
      }
    },
  );

  it("GET large file: streamed from disk with ranges, and from its compressed variant's file", async () => {
    const edge = await startTestEdge({ cacheFileBytes: MIB });
    try {
      const big = Buffer.from("<p>large page</p>\n".repeat(Math.ceil((2 * MIB) / 18)));
      await edge.publish({ slug: "blue-fox-k3", revisionId: "bbbbbbbbb2", files: { "/big.html": big } });
      const plain = await edge.get(HOST, "/big");
      expect(plain.body.equals(big)).toBe(true);
      expect(plain.headers["content-length"]).toBe(String(big.length));
      const ranged = await edge.get(HOST, "/big", { range: `bytes=${MIB}-${MIB + 99}` });
      expect(ranged.status).toBe(206);
      expect(ranged.body.equals(big.subarray(MIB, MIB + 100))).toBe(true);
      // The variant is made once, as a file, so its length is known (issue 14, item 5).
      const br = await edge.get(HOST, "/big", { "accept-encoding": "br" });
      expect(br.headers["content-length"]).toBe(String(br.body.length));
      expect(brotliDecompressSync(br.body).equals(big)).toBe(true);
    } finally {
      await edge.close();
    }
  });

  it("GET aborted by the client: mid-stream or before the body, nothing fails and the edge keeps serving", async () => {
    const edge = await startTestEdge({ cacheFileBytes: 64 * 1024 });
    try {
      const files = {
        "/big.html": "<p>large page</p>\n".repeat(200_000),
        "/small.html": "<p>small</p>".repeat(50),
      };
      await edge.publish({ slug: "blue-fox-k3", revisionId: "bbbbbbbbb2", files });
      for (const path of ["/big", "/small"]) {
        for (const encoding of ["identity", "br"]) {
          await new Promise<void>((resolve) => {
            const socket = connect(edge.port, "127.0.0.1", () => {
              socket.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\nAccept-Encoding: ${encoding}\r\n\r\n`);
              // The small file is cold: leave before the edge has even read it.
              if (path === "/small") socket.destroy();
            });
            socket.once("data", () => socket.destroy());
            socket.once("close", () => resolve());
          });
          // The edge is done with the aborted request (or has not accepted it yet: then the last
          // settled() below waits for it) before the next one.
          await edge.settled();
        }
      }
      expect((await edge.get(HOST, "/small")).status).toBe(200);
      await edge.settled();
      expect(edge.errors).toEqual([]);
    } finally {
      await edge.close();
    }
  });
});
