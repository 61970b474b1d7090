import { describe, expect, it } from "vitest";
import { isCompressible, mediaTypeFor } from "./media-types.js";

describe("media types", () => {
  it("mediaTypeFor: by the extension, in any letter case; bytes for anything unknown", () => {
    expect(mediaTypeFor("/index.html")).toBe("text/html; charset=utf-8");
    expect(mediaTypeFor("/A/B.CSS")).toBe("text/css; charset=utf-8");
    expect(mediaTypeFor("/logo.svg")).toBe("image/svg+xml");
    expect(mediaTypeFor("/archive.tar.gz")).toBe("application/gzip");
    expect(mediaTypeFor("/x.unknown")).toBe("application/octet-stream");
    expect(mediaTypeFor("/README")).toBe("application/octet-stream");
    expect(mediaTypeFor("/dir.html/file")).toBe("application/octet-stream");
  });

  it("mediaTypeFor: an extension naming a property of plain objects (constructor, __proto__) is unknown: bytes", () => {
    for (const path of ["/a.constructor", "/a.__proto__", "/a.hasownproperty"]) {
      expect(mediaTypeFor(path), path).toBe("application/octet-stream");
    }
  });

  it("mediaTypeFor: the extension is extname's (a leading dot, dots alone, a dot in a folder name)", () => {
    const cases: [string, string][] = [
      ["/x/.htaccess", "application/octet-stream"],
      ["/.a.css", "text/css; charset=utf-8"],
      ["/a..css", "text/css; charset=utf-8"],
      ["/a/..css", "text/css; charset=utf-8"],
      ["/..", "application/octet-stream"],
      ["/a.css.", "application/octet-stream"],
      ["/a.css/b", "application/octet-stream"],
      ["/a.css/", "text/css; charset=utf-8"],
      ["a.css", "text/css; charset=utf-8"],
    ];
    for (const [path, type] of cases) expect(mediaTypeFor(path), path).toBe(type);
  });

  it("isCompressible: true for text and the text-like formats, whatever the parameters and case", () => {
    for (const type of [
      "text/html; charset=utf-8",
      "TEXT/PLAIN",
      "  text/css ; charset=utf-8",
      "image/svg+xml",
      "application/wasm",
      "image/x-icon",
      "image/bmp",
      "font/ttf",
      "font/otf",
      "application/vnd.ms-fontobject",
      "application/json",
      "application/xml",
      "application/javascript",
      "application/ld+json",
      "application/rss+xml",
      "application/vnd.api+json",
      "application/manifest+json; charset=utf-8",
    ]) {
      expect(isCompressible(type), type).toBe(true);
    }
  });

  it("isCompressible: false for compressed images, fonts, media, archives and look-alikes", () => {
    for (const type of [
      "image/png",
      "image/jpeg",
      "font/woff2",
      "font/woff",
      "video/mp4",
      "application/zip",
      "application/gzip",
      "application/octet-stream",
      "application/pdf",
      "application/jsonx",
      "xapplication/json",
      "application/x json",
      "image/svg",
      "mytext/plain",
    ]) {
      expect(isCompressible(type), type).toBe(false);
    }
  });
});
