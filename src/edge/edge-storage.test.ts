import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { edgeGet } from "../../test/support/http.js";
import { MemoryEdgeStorage } from "../../test/support/memory-edge-storage.js";
import { createEdgeHandler, type EdgeOptions } from "./edge-handler.js";

// The edge on a storage in maps: routing, 404s, ranges and preconditions with no database or disk.
const HOST = "shop.example";
const PAGE = "<!doctype html><title>shop</title>";
const STYLE = "body { color: teal } ".repeat(100);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** An edge on a fresh in-memory storage serving one site on HOST; `get` sends one request. */
async function edgeOn(options: Partial<EdgeOptions> = {}) {
  const storage = new MemoryEdgeStorage();
  storage.publish(HOST, {
    projectSlug: "shop",
    revisionId: "aaaaaaaaa1",
    files: { "/index.html": PAGE, "/style.css": STYLE, "/docs/index.html": "docs" },
  });
  const errors: unknown[] = [];
  const handler = createEdgeHandler({ storage, onError: (error) => errors.push(error), ...options });
  // What each call of the handler returned: a promise when it had to wait, else nothing.
  const returned: unknown[] = [];
  server = createServer((req, res) => void returned.push(handler(req, res)));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = (path: string, headers: Record<string, string> = {}, host = HOST) =>
    edgeGet(base, host, path, headers);
  return { storage, errors, get, returned };
}

describe("edge on a storage handed to it", () => {
  it("edge: a path is routed to its file (an extensionless name, a folder's index), by Host, any case and port", async () => {
    const { get } = await edgeOn();
    const home = await get("/", {}, "SHOP.example:8080");
    expect([home.status, home.headers["content-type"], home.body.toString()]).toEqual([
      200,
      "text/html; charset=utf-8",
      PAGE,
    ]);
    expect((await get("/docs/")).body.toString()).toBe("docs");
    const moved = await get("/docs");
    expect([moved.status, moved.headers.location]).toEqual([308, "/docs/"]);
  });

  it("edge: a host no site answers on and a path no file has are 404 Not Found", async () => {
    const { get, storage } = await edgeOn();
    const unknown = await get("/", {}, "other.example");
    expect([unknown.status, unknown.body.toString()]).toEqual([404, "Not Found\n"]);
    expect(storage.calls.findFile).toBe(0);
    // No /404.html, but an /index.html: a navigation gets the app's page, anything else the 404.
    expect((await get("/missing.png")).status).toBe(404);
    expect((await get("/missing", { accept: "text/html" })).body.toString()).toBe(PAGE);
  });

  it("edge: a hot file is read from the storage once; the next requests are answered from memory", async () => {
    const { get, storage } = await edgeOn();
    for (let i = 0; i < 3; i++) expect((await get("/style.css")).body.toString()).toBe(STYLE);
    expect(storage.calls).toMatchObject({ readBlob: 1, openBlob: 0 });
  });

  it("edge: a remembered route of a blob in memory is answered within the handler's call, with no promise; the first request waits for the storage", async () => {
    const { get, returned } = await edgeOn();
    for (let i = 0; i < 3; i++) expect((await get("/style.css")).body.toString()).toBe(STYLE);
    expect(returned[0]).toBeInstanceOf(Promise);
    expect(returned.slice(1)).toEqual([undefined, undefined]);
  });

  for (const cacheBytes of [undefined, 0]) {
    const from = cacheBytes === 0 ? "streamed from the storage" : "from memory";
    it(`edge: Range: bytes=5-9 is 206 with those bytes; past the end, 416 (${from})`, async () => {
      const { get } = await edgeOn({ cacheBytes });
      const part = await get("/style.css", { range: "bytes=5-9" });
      expect([part.status, part.headers["content-range"], part.body.toString()]).toEqual([
        206,
        `bytes 5-9/${STYLE.length}`,
        STYLE.slice(5, 10),
      ]);
      const past = await get("/style.css", { range: `bytes=${STYLE.length}-` });
      expect([past.status, past.headers["content-range"]]).toEqual([416, `bytes */${STYLE.length}`]);
    });

    it(`edge: If-None-Match with the file's ETag is 304 without a body; another tag, 200 (${from})`, async () => {
      const { get } = await edgeOn({ cacheBytes });
      const etag = String((await get("/style.css")).headers.etag);
      const again = await get("/style.css", { "if-none-match": etag });
      expect([again.status, again.headers.etag, again.body.length]).toEqual([304, etag, 0]);
      expect((await get("/style.css", { "if-none-match": '"other"' })).status).toBe(200);
    });
  }

  it("edge: a large file's gzip variant is made once into the storage and sent from there", async () => {
    const { get, storage } = await edgeOn({ cacheFileBytes: 64 });
    const encoded = { "accept-encoding": "gzip" };
    const first = await get("/style.css", encoded);
    expect([first.headers["content-encoding"], gunzipSync(first.body).toString()]).toEqual(["gzip", STYLE]);
    expect([...storage.variants.values()]).toEqual([first.body]);
    expect((await get("/style.css", encoded)).body).toEqual(first.body);
    expect(storage.calls.openBlob).toBe(1);
  });

  it("edge: what the storage says a host serves next is served on the next request", async () => {
    const { get, storage } = await edgeOn();
    expect((await get("/")).body.toString()).toBe(PAGE);
    storage.publish(HOST, { projectSlug: "shop", revisionId: "bbbbbbbbb2", files: { "/index.html": "new" } });
    expect((await get("/")).body.toString()).toBe("new");
  });
});
