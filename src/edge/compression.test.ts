import { Readable } from "node:stream";
import { buffer } from "node:stream/consumers";
import { brotliCompressSync, brotliDecompressSync, constants, gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compressBody, compressorFor, worthCompressing } from "./compression.js";

/** Text that compresses, `size` bytes of it: CSS-like words in a fixed pseudo-random order. */
function text(size: number): Buffer {
  const words = ["body", "color", "margin", "auto", "div", "span", "flex", "grid", "none", "block"];
  let out = "";
  let x = 1;
  while (out.length < size) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += words[x % words.length]! + (x % 7 === 0 ? ";\n" : " ");
  }
  return Buffer.from(out.slice(0, size));
}

/** Brotli as the edge asks for it: text mode, the size as a hint, the given quality. */
function brotli(body: Buffer, quality: number): Buffer {
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

describe("compression", () => {
  it("worthCompressing: a compressible type from 256 bytes on; never a smaller file or another type", () => {
    expect(worthCompressing("text/css", 256)).toBe(true);
    expect(worthCompressing("text/css; charset=utf-8", 10_000)).toBe(true);
    expect(worthCompressing("text/css", 255)).toBe(false);
    expect(worthCompressing("image/png", 256)).toBe(false);
    expect(worthCompressing("image/png", 10_000)).toBe(false);
  });

  it("compressBody: br at quality 11 below 64 KiB, 9 from 64 KiB; gzip; each decodes to the body", async () => {
    const small = text(64 * 1024 - 1);
    const large = text(64 * 1024);
    const smallBr = await compressBody(small, "br");
    const largeBr = await compressBody(large, "br");
    expect(brotliDecompressSync(smallBr)).toEqual(small);
    expect(brotliDecompressSync(largeBr)).toEqual(large);
    // Brotli's output is a function of its parameters: the same bytes as these settings give.
    expect(smallBr).toEqual(brotli(small, 11));
    expect(largeBr).toEqual(brotli(large, 9));
    expect(largeBr).not.toEqual(brotli(large, 11));
    const gzipped = await compressBody(small, "gzip");
    expect(gunzipSync(gzipped)).toEqual(small);
    expect(gzipped).toEqual(gzipSync(small, { level: 6 }));
  });

  it("compressorFor: a large blob's br at quality 5 and gzip, as streams that decode to the body", async () => {
    const body = text(16 * 1024);
    const br = await buffer(Readable.from([body]).pipe(compressorFor("br", body.length)));
    expect(brotliDecompressSync(br)).toEqual(body);
    expect(br).toEqual(brotli(body, 5));
    expect(br).not.toEqual(brotli(body, 11));
    const gz = await buffer(Readable.from([body]).pipe(compressorFor("gzip", body.length)));
    expect(gunzipSync(gz)).toEqual(body);
  });
});
