import { describe, expect, it } from "vitest";
import { AssetHasher, hashAsset } from "../core/asset-hash.js";
import { Base64PartSink, PartContentError } from "./base64-part.js";
import { expectAsReference } from "./test-base64-texts.js";

/** Feeds `chunks` of base64 text to a new sink; returns it and the bytes its target received. */
async function feed(chunks: string[], maxBytes = 1024): Promise<{ sink: Base64PartSink; received: Buffer }> {
  const appended: Uint8Array[] = [];
  const sink = new Base64PartSink(
    await AssetHasher.create(),
    { append: async (bytes) => void appended.push(Buffer.from(bytes)) },
    maxBytes,
  );
  for (const chunk of chunks) await sink.write(Buffer.from(chunk, "latin1"));
  await sink.end();
  return { sink, received: Buffer.concat(appended) };
}

/** Every way of cutting `text` into two chunks. */
function cuts(text: string): string[][] {
  return Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
}

describe("Base64PartSink", () => {
  it("Base64PartSink: decodes and hashes the same wherever the chunks are cut", async () => {
    const bytes = Buffer.from("hello, world!"); // 13 bytes: base64 ends in one `=`
    const expected = await hashAsset(bytes, "/a.txt");
    for (const chunks of cuts(bytes.toString("base64"))) {
      const { sink, received } = await feed(chunks);
      expect(received).toEqual(bytes);
      expect(sink.size).toBe(13);
      expect(sink.hash("txt")).toBe(expected);
    }
  });

  it("Base64PartSink: a reused hasher starts afresh for each part", async () => {
    const hasher = await AssetHasher.create();
    hasher.updateBase64("c3RhbGU=");
    const sink = new Base64PartSink(hasher, undefined, 100);
    await sink.write(Buffer.from("YWJj"));
    await sink.end();
    expect(sink.hash("txt")).toBe(await hashAsset(Buffer.from("abc"), "/x.txt"));
  });

  it("Base64PartSink: without a target, still counts and hashes, and keeps nothing", async () => {
    const sink = new Base64PartSink(await AssetHasher.create(), undefined, 100);
    await sink.write(Buffer.from("YWJjZA=="));
    await sink.end();
    expect(sink.size).toBe(4);
    expect(sink.hash("")).toBe(await hashAsset(Buffer.from("abcd"), "/README"));
  });

  it("Base64PartSink: non-canonical padding hashes as the canonical base64 of the bytes", async () => {
    // `YR==` decodes to "a" like `YQ==`: the hash must be of "a", not of the text sent.
    const { sink } = await feed(["YR=="]);
    expect(sink.hash("txt")).toBe(await hashAsset(Buffer.from("a"), "/a.txt"));
  });

  it("Base64PartSink: non-canonical bits before `==` hash as the canonical base64, however few", async () => {
    // `YU==` decodes to "a" like `YQ==`; its last letter (U, 20) has only bits that a single
    // `=` would keep, so only the check for two padding characters can tell it is not canonical.
    for (const text of ["YU==", "YR==", "YW==", "YWJjZU=="]) {
      const bytes = Buffer.from(text, "base64");
      const { sink, received } = await feed([text]);
      expect(received, text).toEqual(bytes);
      expect(sink.hash("txt"), text).toBe(await hashAsset(bytes, "/a.txt"));
    }
  });

  it("Base64PartSink: the target is given decoded bytes only, never an empty piece", async () => {
    const pieces: number[] = [];
    const sink = new Base64PartSink(
      await AssetHasher.create(),
      { append: async (bytes) => void pieces.push(bytes.length) },
      100,
    );
    // One character at a time: three of every four writes complete no quad.
    for (const char of "YWJjZGVm") await sink.write(Buffer.from(char));
    await sink.end();
    expect(pieces).toEqual([3, 3]);
  });

  it("Base64PartSink: PartContentError for a character outside base64, in any chunk", async () => {
    await expect(feed(["YWJj", "ZA-="])).rejects.toThrow(new PartContentError("content is not base64"));
    await expect(feed(["YW Jj"])).rejects.toThrow("content is not base64");
    // In the last bytes, short of a quad: refused as such, not taken for a cut-off end.
    await expect(feed(["YWJjZ*"])).rejects.toThrow("content is not base64");
  });

  it("Base64PartSink: PartContentError for content after the padding, or padding mid-content", async () => {
    await expect(feed(["YQ==", "YWJj"])).rejects.toThrow("content continues after base64 padding");
    await expect(feed(["YQ==YWJj"])).rejects.toThrow("base64 padding in the middle of content");
    await expect(feed(["Y===", ""])).rejects.toThrow("base64 padding in the middle of content");
    await expect(feed(["YQ=a"])).rejects.toThrow("base64 padding in the middle of content");
  });

  it("Base64PartSink: `YQ=` then `=` in the next chunk is one padded quad", async () => {
    const { received } = await feed(["YQ=", "="]);
    expect(received).toEqual(Buffer.from("a"));
  });

  it("Base64PartSink: PartContentError for a length not a multiple of four", async () => {
    await expect(feed(["YWJjZ"])).rejects.toThrow("base64 content is truncated");
  });

  it("Base64PartSink: content of exactly maxBytes is taken, one byte more is refused", async () => {
    const { sink } = await feed([Buffer.alloc(6, 1).toString("base64")], 6);
    expect(sink.size).toBe(6);
    await expect(feed([Buffer.alloc(7, 1).toString("base64")], 6)).rejects.toThrow(
      new PartContentError("content exceeds 6 bytes"),
    );
  });

  it("Base64PartSink: takes, refuses and hashes any text as decoding and encoding it again would", async () => {
    const refused = await expectAsReference(17, 3000, (chunks) =>
      feed(chunks, 64).then(({ sink }) => sink.hash("txt")),
    );
    // Both ways were taken often.
    expect(refused).toBeGreaterThan(500);
    expect(refused).toBeLessThan(2500);
  });
});
