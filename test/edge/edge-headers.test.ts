import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";
const REVISION_HOST = "bbbbbbbbb2--blue-fox-k3.sites.test";
const PUBLISHED_AT = Date.UTC(2026, 10, 20, 8, 30, 15, 400);
const LAST_MODIFIED = "Fri, 20 Nov 2026 08:30:15 GMT";
const css = "body { color: teal }\n".repeat(50);

// Headers and preconditions, whether the file is answered from memory or streamed from disk.
describe.each([
  { mode: "memory cache", options: {} },
  { mode: "disk streaming", options: { cacheBytes: 0 } },
])("edge headers and preconditions ($mode)", ({ options }) => {
  let edge: TestEdge;
  let tag: string;

  beforeAll(async () => {
    edge = await startTestEdge(options);
    await edge.publish({
      slug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      publishedAt: PUBLISHED_AT,
      files: { "/index.html": "<p>home</p>", "/style.css": css, "/404.html": "<p>missing</p>" },
    });
    tag = `"${await hashAsset(Buffer.from(css), "/style.css")}"`;
  });
  afterAll(() => edge.close());
  const get = (headers: Record<string, string>, path = "/style.css") => edge.get(HOST, path, headers);

  it("GET production: Last-Modified of the revision's publish time, Cloudflare's safe defaults, no noindex", async () => {
    const reply = await get({});
    expect(reply.headers["last-modified"]).toBe(LAST_MODIFIED);
    expect(reply.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    expect(reply.headers["access-control-allow-origin"]).toBe("*");
    expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    expect(reply.headers["x-robots-tag"]).toBeUndefined();
  });

  it("GET revision host: X-Robots-Tag: noindex, on pages and on the 404 page", async () => {
    expect((await edge.get(REVISION_HOST, "/")).headers["x-robots-tag"]).toBe("noindex");
    const missing = await edge.get(REVISION_HOST, "/nope");
    expect([missing.status, missing.headers["x-robots-tag"]]).toEqual([404, "noindex"]);
  });

  it("GET If-Modified-Since: 304 at or after Last-Modified, 200 before it or when not a date", async () => {
    for (const since of [LAST_MODIFIED, "Sat, 21 Nov 2026 00:00:00 GMT"]) {
      const reply = await get({ "if-modified-since": since });
      expect([reply.status, reply.body.length], since).toEqual([304, 0]);
      expect(reply.headers.etag).toBe(tag);
      expect(reply.headers["last-modified"]).toBe(LAST_MODIFIED);
    }
    for (const since of ["Fri, 20 Nov 2026 08:30:14 GMT", "yesterday"]) {
      expect((await get({ "if-modified-since": since })).status, since).toBe(200);
    }
  });

  it("GET If-Modified-Since: ignored beside If-None-Match, which decides", async () => {
    const reply = await get({ "if-modified-since": LAST_MODIFIED, "if-none-match": '"other"' });
    expect(reply.status).toBe(200);
    expect((await get({ "if-modified-since": "yesterday", "if-none-match": tag })).status).toBe(304);
  });

  it("GET If-Match: 412 for another tag or a weak one, the file for its tag (any coding) or *", async () => {
    for (const ifMatch of ['"other"', `W/${tag}`]) {
      const reply = await get({ "if-match": ifMatch });
      expect([reply.status, reply.body.toString()], ifMatch).toEqual([412, "Precondition Failed\n"]);
    }
    const brTag = tag.replace(/"$/, '-br"');
    for (const ifMatch of [tag, `"other", ${brTag}`, "*"]) {
      expect((await get({ "if-match": ifMatch })).status, ifMatch).toBe(200);
    }
  });

  it("GET If-Unmodified-Since: 412 when modified after it, the file otherwise; ignored beside If-Match", async () => {
    expect((await get({ "if-unmodified-since": "Fri, 20 Nov 2026 08:30:14 GMT" })).status).toBe(412);
    expect((await get({ "if-unmodified-since": LAST_MODIFIED })).status).toBe(200);
    expect((await get({ "if-unmodified-since": "not a date" })).status).toBe(200);
    const both = { "if-unmodified-since": "Fri, 20 Nov 2026 08:30:14 GMT", "if-match": tag };
    expect((await get(both)).status).toBe(200);
  });

  it("GET preconditions on a missing path: ignored, the 404 page answers", async () => {
    const reply = await get({ "if-match": '"other"', "if-modified-since": LAST_MODIFIED }, "/nope");
    expect([reply.status, reply.body.toString()]).toEqual([404, "<p>missing</p>"]);
    expect(reply.headers["last-modified"]).toBeUndefined();
  });

  it("GET a hot file: preconditions are judged on every request, not only the first", async () => {
    await get({});
    await get({});
    expect((await get({ "if-modified-since": LAST_MODIFIED })).status).toBe(304);
    expect((await get({ "if-match": '"other"' })).status).toBe(412);
    expect((await get({ "if-unmodified-since": "Thu, 19 Nov 2026 00:00:00 GMT" })).status).toBe(412);
  });
});
