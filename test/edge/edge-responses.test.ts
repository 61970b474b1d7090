import { randomBytes } from "node:crypto";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";
const REVISION_HOST = "bbbbbbbbb2--blue-fox-k3.sites.test";
const PRODUCTION_CACHE = "public, max-age=0, must-revalidate";
const REVISION_CACHE = "public, max-age=31536000, immutable";

const css = Buffer.from("body { color: rebeccapurple; }\n".repeat(400));
const image = randomBytes(300_000);
const bundle = Buffer.from(
  Array.from({ length: 60_000 }, (_, i) => `export const value${i} = ${i * 7};\n`).join(""),
);
const notFoundPage = Buffer.from(
  `<!doctype html><title>Not found</title>${"<p>nothing here</p>".repeat(50)}`,
);

// The same behaviour whether a blob is answered from memory or streamed from its file.
describe.each([
  { mode: "memory cache", options: {} },
  { mode: "disk streaming", options: { cacheBytes: 0 } },
])("edge responses ($mode)", ({ options }) => {
  let edge: TestEdge;
  let cssHash: string;
  let imageHash: string;

  beforeAll(async () => {
    edge = await startTestEdge(options);
    await edge.publish({
      slug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      files: {
        "/index.html": "<!doctype html><p>hi</p>",
        "/style.css": css,
        "/photo.png": image,
        "/app.js": bundle,
        "/data.bin": "raw bytes",
        "/empty.txt": "",
        "/404.html": notFoundPage,
      },
    });
    cssHash = await hashAsset(css, "/style.css");
    imageHash = await hashAsset(image, "/photo.png");
  });
  afterAll(() => edge.close());

  it("GET: Content-Type as stored, strong ETag of the hash, Content-Length, Accept-Ranges", async () => {
    const reply = await edge.get(HOST, "/photo.png");
    expect(reply.status).toBe(200);
    expect(reply.headers["content-type"]).toBe("image/png");
    expect(reply.headers.etag).toBe(`"${imageHash}"`);
    expect(reply.headers["content-length"]).toBe(String(image.length));
    expect(reply.headers["accept-ranges"]).toBe("bytes");
    expect(reply.headers.vary).toBeUndefined();
    expect(reply.body.equals(image)).toBe(true);
    expect((await edge.get(HOST, "/data.bin")).headers["content-type"]).toBe("application/octet-stream");
  });

  it("GET: an empty file is a 200 with no body", async () => {
    const reply = await edge.get(HOST, "/empty.txt", { "accept-encoding": "br" });
    expect(reply.status).toBe(200);
    expect(reply.headers["content-length"]).toBe("0");
    expect(reply.headers["content-encoding"]).toBeUndefined();
    expect(reply.body.length).toBe(0);
  });

  it("GET: Cache-Control revalidates production pages and keeps revision pages forever", async () => {
    expect((await edge.get(HOST, "/")).headers["cache-control"]).toBe(PRODUCTION_CACHE);
    expect((await edge.get(REVISION_HOST, "/")).headers["cache-control"]).toBe(REVISION_CACHE);
    expect((await edge.get(REVISION_HOST, "/nope")).headers["cache-control"]).toBe("no-store");
  });

  it("GET If-None-Match: 304 with validator and caching fields, no body", async () => {
    for (const tag of [`"${imageHash}"`, `W/"${imageHash}"`, `"other", "${imageHash}"`, "*"]) {
      const reply = await edge.get(HOST, "/photo.png", { "if-none-match": tag });
      expect(reply.status, tag).toBe(304);
      expect(reply.body.length).toBe(0);
      expect(reply.headers.etag).toBe(`"${imageHash}"`);
      expect(reply.headers["cache-control"]).toBe(PRODUCTION_CACHE);
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
      // The representation's metadata stays out of a 304 (RFC 9110 §15.4.5).
      expect(reply.headers["content-type"]).toBeUndefined();
      expect(reply.headers["accept-ranges"]).toBeUndefined();
    }
    expect((await edge.get(HOST, "/photo.png", { "if-none-match": '"other"' })).status).toBe(200);
  });

  it("GET If-None-Match: each coding has its own tag", async () => {
    const br = { "accept-encoding": "br" };
    expect((await edge.get(HOST, "/style.css", { ...br, "if-none-match": `"${cssHash}-br"` })).status).toBe(
      304,
    );
    expect((await edge.get(HOST, "/style.css", { ...br, "if-none-match": `"${cssHash}"` })).status).toBe(200);
    const gz = await edge.get(HOST, "/style.css", {
      "accept-encoding": "gzip",
      "if-none-match": `"${cssHash}-br"`,
    });
    expect(gz.status).toBe(200);
    expect(gz.headers.etag).toBe(`"${cssHash}-gz"`);
  });

  it("GET If-None-Match: a 404 page is never a 304", async () => {
    expect((await edge.get(HOST, "/nope", { "if-none-match": "*" })).status).toBe(404);
  });

  it("HEAD: the headers of GET without a body", async () => {
    for (const [path, headers] of [
      ["/photo.png", {}],
      ["/style.css", {}],
      ["/style.css", { "accept-encoding": "br" }],
      ["/nope", {}],
    ] as const) {
      const get = await edge.get(HOST, path, headers);
      const head = await edge.get(HOST, path, headers, "HEAD");
      expect(head.status, path).toBe(get.status);
      expect(head.body.length).toBe(0);
      for (const name of [
        "content-type",
        "content-length",
        "etag",
        "cache-control",
        "content-encoding",
        "vary",
      ]) {
        expect(head.headers[name], `${path} ${name}`).toBe(get.headers[name]);
      }
    }
  });

  it("GET Range: first-last, open-ended and suffix ranges give 206 with Content-Range", async () => {
    const size = image.length;
    for (const [range, start, end] of [
      ["bytes=0-9", 0, 9],
      ["bytes=1000-", 1000, size - 1],
      ["bytes=-500", size - 500, size - 1],
      ["bytes=299990-999999", 299_990, size - 1],
    ] as const) {
      const reply = await edge.get(HOST, "/photo.png", { range });
      expect(reply.status, range).toBe(206);
      expect(reply.headers["content-range"]).toBe(`bytes ${start}-${end}/${size}`);
      expect(reply.headers["content-length"]).toBe(String(end - start + 1));
      expect(reply.body.equals(image.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it("GET Range: unsatisfiable ranges give 416 with the size", async () => {
    for (const [path, range, size] of [
      ["/photo.png", `bytes=${image.length}-`, image.length],
      ["/photo.png", "bytes=-0", image.length],
      ["/empty.txt", "bytes=0-", 0],
    ] as const) {
      const reply = await edge.get(HOST, path, { range });
      expect(reply.status, range).toBe(416);
      expect(reply.headers["content-range"]).toBe(`bytes */${size}`);
      expect(reply.headers["accept-ranges"]).toBe("bytes");
      expect(reply.body.toString()).toBe("Range Not Satisfiable\n");
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("GET Range: several or malformed ranges get the whole 200", async () => {
    for (const range of ["bytes=0-1,5-6", "bytes=9-2", "lines=1-2"]) {
      const reply = await edge.get(HOST, "/photo.png", { range });
      expect(reply.status, range).toBe(200);
      expect(reply.body.equals(image)).toBe(true);
    }
  });

  it("GET Range: If-Range applies the range only to the same representation", async () => {
    const same = await edge.get(HOST, "/photo.png", { range: "bytes=0-3", "if-range": `"${imageHash}"` });
    expect(same.status).toBe(206);
    const changed = await edge.get(HOST, "/photo.png", { range: "bytes=0-3", "if-range": '"older"' });
    expect(changed.status).toBe(200);
    expect(changed.body.length).toBe(image.length);
  });

  it("GET Range: a compressible file is ranged over its identity bytes, uncompressed", async () => {
    const reply = await edge.get(HOST, "/style.css", { range: "bytes=5-14", "accept-encoding": "br, gzip" });
    expect(reply.status).toBe(206);
    expect(reply.headers["content-encoding"]).toBeUndefined();
    expect(reply.headers.etag).toBe(`"${cssHash}"`);
    expect(reply.headers.vary).toBe("Accept-Encoding");
    expect(reply.body.equals(css.subarray(5, 15))).toBe(true);
  });

  it("HEAD Range: ignored, as only GET defines ranges", async () => {
    const reply = await edge.get(HOST, "/photo.png", { range: "bytes=0-9" }, "HEAD");
    expect(reply.status).toBe(200);
    expect(reply.headers["content-length"]).toBe(String(image.length));
  });

  it("GET Accept-Encoding br: brotli for compressible types, with Vary and its own ETag", async () => {
    for (const [path, bytes] of [
      ["/style.css", css],
      ["/app.js", bundle],
    ] as const) {
      const reply = await edge.get(HOST, path, { "accept-encoding": "gzip, deflate, br" });
      expect(reply.headers["content-encoding"], path).toBe("br");
      expect(reply.headers.vary).toBe("Accept-Encoding");
      expect(reply.headers.etag).toBe(`"${await hashAsset(bytes, path)}-br"`);
      expect(reply.body.length).toBeLessThan(bytes.length / 4);
      expect(brotliDecompressSync(reply.body).equals(bytes), path).toBe(true);
    }
  });

  it("GET Accept-Encoding gzip: gzip for compressible types", async () => {
    for (const [path, bytes] of [
      ["/style.css", css],
      ["/app.js", bundle],
    ] as const) {
      const reply = await edge.get(HOST, path, { "accept-encoding": "gzip" });
      expect(reply.headers["content-encoding"], path).toBe("gzip");
      expect(reply.headers.etag).toBe(`"${await hashAsset(bytes, path)}-gz"`);
      expect(gunzipSync(reply.body).equals(bytes), path).toBe(true);
    }
  });

  it("GET Accept-Encoding: identity when nothing acceptable, and never for incompressible types", async () => {
    const plain = await edge.get(HOST, "/style.css", { "accept-encoding": "br;q=0, gzip;q=0" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(plain.body.equals(css)).toBe(true);
    const png = await edge.get(HOST, "/photo.png", { "accept-encoding": "br, gzip" });
    expect(png.headers["content-encoding"]).toBeUndefined();
    expect(png.body.equals(image)).toBe(true);
  });

  it("GET missing path: the 404 page is compressed too", async () => {
    const reply = await edge.get(HOST, "/nope", { "accept-encoding": "br" });
    expect(reply.status).toBe(404);
    expect(reply.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(reply.body).equals(notFoundPage)).toBe(true);
  });

  it("every response: X-Content-Type-Options: nosniff", async () => {
    const replies = [
      await edge.get(HOST, "/"),
      await edge.get(HOST, "/photo.png", { range: "bytes=0-0" }),
      await edge.get(HOST, "/nope"),
      await edge.get("nobody.sites.test", "/"),
      await edge.get(HOST, "/", {}, "POST"),
      await edge.get(HOST, "/%zz"),
    ];
    for (const reply of replies)
      expect(reply.headers["x-content-type-options"], String(reply.status)).toBe("nosniff");
  });
});
