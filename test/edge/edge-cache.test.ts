import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SiteTables } from "../../src/platform/selfhost/sites/site-tables.js";
import { DAY, startTestEdge, type EdgeReply, type TestEdge } from "../support/edge-site.js";

const SLUG = "blue-fox-k3";
const HOST = `${SLUG}.sites.test`;
const PAGE = "<p>" + "cached page ".repeat(50) + "</p>";

// Every header but Date, which moves with the clock.
const headersOf = (reply: EdgeReply) => {
  const { date: _date, ...rest } = reply.headers;
  return rest;
};

describe("edge with warm caches", () => {
  let edge: TestEdge;
  let tables: SiteTables;

  // Publishes through the platform's real writer: files come from an upload session's rows.
  const publish = (revisionId: string, files: Record<string, string>, hostnames = [HOST]) =>
    edge.publishThroughTables(SLUG, revisionId, files, hostnames);
  const text = async (host: string, path: string) => {
    const reply = await edge.get(host, path);
    return `${reply.status} ${reply.body.toString()}`;
  };

  beforeEach(async () => {
    edge = await startTestEdge({ maxRoutes: 4 });
    tables = new SiteTables(edge.db);
    await publish("aaaaaaaaa1", { "/index.html": "one", "/404.html": "missing one", "/page.html": PAGE });
    // Twice: the first request loads the blob, the second is answered from memory.
    for (let i = 0; i < 2; i++) expect(await text(HOST, "/")).toBe("200 one");
  });
  afterEach(async () => {
    expect(edge.errors).toEqual([]);
    await edge.close();
  });

  it("a publish shows on the very next request", async () => {
    await publish("bbbbbbbbb2", { "/index.html": "two" });
    expect(await text(HOST, "/")).toBe("200 two");
    expect(await text(HOST, "/nope")).toBe("404 Not Found\n");
  });

  it("a hostname change shows on the very next request", async () => {
    tables.update(SLUG, ["www.example.com"], edge.clock.now + DAY);
    expect(await text(HOST, "/")).toBe("404 Not Found\n");
    expect(await text("www.example.com", "/")).toBe("200 one");
  });

  it("a removal shows on the very next request, on revision hosts too", async () => {
    const pinned = `aaaaaaaaa1--${SLUG}.sites.test`;
    expect(await text(pinned, "/")).toBe("200 one");
    tables.remove(SLUG);
    expect(await text(HOST, "/")).toBe("404 Not Found\n");
    expect(await text(pinned, "/")).toBe("404 Not Found\n");
  });

  it("an expired site stops serving on the next request, with no write", async () => {
    expect(await text(HOST, "/nope")).toBe("404 missing one");
    edge.clock.now += 31 * DAY;
    expect(await text(HOST, "/")).toBe("404 Not Found\n");
    expect(await text(HOST, "/nope")).toBe("404 Not Found\n");
  });

  it("the ready heads of a hot file are the ones the general path sends", async () => {
    for (const encoding of ["", "gzip", "br"]) {
      const accept: Record<string, string> = encoding === "" ? {} : { "accept-encoding": encoding };
      const first = await edge.get(HOST, "/page", accept);
      const hot = await edge.get(HOST, "/page", accept);
      // An If-None-Match that matches nothing takes the general path and must answer the same.
      const general = await edge.get(HOST, "/page", { ...accept, "if-none-match": '"other"' });
      const head = await edge.get(HOST, "/page", accept, "HEAD");
      expect(hot.status).toBe(200);
      expect(headersOf(hot)).toEqual(headersOf(first));
      expect(headersOf(hot)).toEqual(headersOf(general));
      expect(headersOf(head)).toEqual(headersOf(general));
      expect(hot.body).toEqual(general.body);
      expect(head.body.length).toBe(0);
      expect(hot.headers["content-encoding"]).toBe(encoding === "" ? undefined : encoding);
    }
    const production = await edge.get(HOST, "/page");
    expect(production.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(production.headers["x-content-type-options"]).toBe("nosniff");
    expect(production.headers.vary).toBe("Accept-Encoding");
    const pinned = await edge.get(`aaaaaaaaa1--${SLUG}.sites.test`, "/page");
    expect(pinned.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("the ready 304 of a hot file is the one the general path sends, byte for byte", async () => {
    // An If-Match: * beside the same If-None-Match takes the general path, and changes nothing.
    const rawHead = async (lines: string[]) => {
      const text = await edge.raw(
        `GET /page HTTP/1.1\r\nHost: ${HOST}\r\n${lines.join("")}Connection: close\r\n\r\n`,
      );
      return text.replace(/^Date: .*$/m, "Date: -");
    };
    for (const encoding of ["", "gzip", "br"]) {
      const accept = encoding === "" ? [] : [`Accept-Encoding: ${encoding}\r\n`];
      const etag = (await edge.get(HOST, "/page", encoding === "" ? {} : { "accept-encoding": encoding }))
        .headers.etag!;
      const ready = await rawHead([...accept, `If-None-Match: ${etag}\r\n`]);
      const general = await rawHead([...accept, `If-None-Match: ${etag}\r\n`, "If-Match: *\r\n"]);
      expect(ready).toMatch(/^HTTP\/1\.1 304 Not Modified\r\n/);
      expect(ready).toContain(`\r\netag: ${etag}\r\n`);
      expect(ready).toBe(general);
    }
  });

  it("a hot 404 page keeps its own heads: no-store, no validator", async () => {
    await edge.get(HOST, "/nope");
    const hot = await edge.get(HOST, "/nope");
    expect(hot.status).toBe(404);
    expect(hot.headers["cache-control"]).toBe("no-store");
    expect(hot.headers.etag).toBeUndefined();
    expect(hot.headers["accept-ranges"]).toBeUndefined();
  });

  it("conditional and range requests on a hot file: 304 and 206", async () => {
    const hot = await edge.get(HOST, "/");
    const etag = hot.headers.etag!;
    expect((await edge.get(HOST, "/", { "if-none-match": etag })).status).toBe(304);
    const range = await edge.get(HOST, "/", { range: "bytes=1-" });
    expect(range.status).toBe(206);
    expect(range.body.toString()).toBe("ne");
  });

  it("a flood of distinct request targets stays within maxRoutes and answers right", async () => {
    for (let i = 0; i < 20; i++) expect(await text(HOST, `/?v=${i}`)).toBe("200 one");
    for (let i = 0; i < 20; i++) expect(await text(HOST, `/missing-${i}`)).toBe("404 missing one");
    expect(await text(HOST, "/%zz")).toBe("400 Bad Request\n");
    expect(await text(HOST, "/page")).toBe(`200 ${PAGE}`);
  });
});
