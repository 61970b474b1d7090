import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import busboy from "busboy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bucketBody, type BucketAsset } from "./multipart.js";

let dir: string;
const contents: Record<string, Buffer> = {
  "index.html": Buffer.from("<!doctype html><p>hi</p>"),
  "empty.txt": Buffer.alloc(0),
  "big.bin": Buffer.from(Array.from({ length: 300_001 }, (_, i) => i % 251)),
};
let assets: BucketAsset[];

/** Writes `bytes` as `name` in the test folder: that file as a bucket asset named `hash`. */
async function writtenAsset(name: string, bytes: Buffer, hash: string): Promise<BucketAsset> {
  await writeFile(join(dir, name), bytes);
  return { hash, file: { path: name, absPath: join(dir, name), size: bytes.length, mtimeMs: 0, ino: 0 } };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "multipart-"));
  assets = [];
  for (const [name, bytes] of Object.entries(contents)) {
    assets.push(await writtenAsset(name, bytes, `${assets.length}`.padStart(32, "a")));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("bucketBody", () => {
  it("bucketBody: announces its exact length, parses as one base64 part per hash with the media type", async () => {
    const body = bucketBody(assets);
    let raw = 0;
    let files = 0;
    const chunks: Buffer[] = [];
    const onSent = (sentFiles: number, bytes: number) => {
      files += sentFiles;
      raw += bytes;
    };
    for await (const chunk of body.stream(onSent)) chunks.push(Buffer.from(chunk));
    const whole = Buffer.concat(chunks);
    expect(whole.length).toBe(body.length);
    expect(raw).toBe(Object.values(contents).reduce((sum, bytes) => sum + bytes.length, 0));
    expect(files).toBe(assets.length);

    const parts = new Map<string, { filename: string; mimeType: string; value: string }>();
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: { "content-type": body.contentType } });
      parser.on("file", (name, stream, info) => {
        let value = "";
        stream.on("data", (data: Buffer) => (value += data.toString("latin1")));
        stream.on("end", () =>
          parts.set(name, { filename: info.filename ?? "", mimeType: info.mimeType, value }),
        );
      });
      parser.on("close", resolve);
      parser.on("error", reject);
      parser.end(whole);
    });
    expect([...parts.keys()]).toEqual(assets.map((asset) => asset.hash));
    for (const asset of assets) {
      const part = parts.get(asset.hash)!;
      expect(part.filename).toBe(asset.hash);
      expect(Buffer.from(part.value, "base64").equals(contents[asset.file.path]!)).toBe(true);
    }
    expect(parts.get(assets[0]!.hash)!.mimeType).toBe("text/html");
    expect(parts.get(assets[2]!.hash)!.mimeType).toBe("application/octet-stream");
  });

  it("bucketBody: small files gathered into chunks of about 1 MiB, a large one between them streamed; every part whole and in order", async () => {
    const many: BucketAsset[] = [];
    const expected = new Map<string, Buffer>();
    for (let i = 0; i < 700; i++) {
      const bytes = Buffer.from(`file ${i} `.repeat(200 + (i % 7)));
      const hash = `${i}`.padStart(32, "b");
      many.push(await writtenAsset(`many-${i}.txt`, bytes, hash));
      expected.set(hash, bytes);
      if (i === 350) {
        many.push(assets[2]!);
        expected.set(assets[2]!.hash, contents["big.bin"]!);
      }
    }
    const body = bucketBody(many);
    const chunks: Buffer[] = [];
    for await (const chunk of body.stream()) chunks.push(Buffer.from(chunk));
    // Far fewer chunks than parts, none much over the batch size.
    expect(chunks.length).toBeLessThan(many.length / 10);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(1024 * 1024 + 8 * 1024);
    const whole = Buffer.concat(chunks);
    expect(whole.length).toBe(body.length);
    const order: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: { "content-type": body.contentType } });
      parser.on("file", (name, stream) => {
        order.push(name);
        let value = "";
        stream.on("data", (data: Buffer) => (value += data.toString("latin1")));
        stream.on("end", () =>
          expect(Buffer.from(value, "base64").equals(expected.get(name)!), name).toBe(true),
        );
      });
      parser.on("close", resolve);
      parser.on("error", reject);
      parser.end(whole);
    });
    expect(order).toEqual(many.map((asset) => asset.hash));
  });

  it("bucketBody: each stream() is a fresh body, so a retry sends it again", async () => {
    const body = bucketBody(assets.slice(0, 1));
    const read = async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of body.stream()) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString("latin1");
    };
    expect(await read()).toBe(await read());
  });

  it("bucketBody: files and bytes are told sent together, once the consumer has taken their chunk; never a byte of a file ahead of the part in flight", async () => {
    const list: BucketAsset[] = [];
    for (let i = 0; i < 1200; i++) {
      const bytes = Buffer.alloc(1500 + (i % 3), i % 256);
      list.push(await writtenAsset(`sent-${i}.bin`, bytes, `${i}`.padStart(32, "c")));
      if (i === 600) list.push(assets[2]!);
    }
    const before = (count: number) => list.slice(0, count).reduce((sum, asset) => sum + asset.file.size, 0);
    let files = 0;
    let bytes = 0;
    const stream = bucketBody(list).stream((sentFiles, sentBytes) => {
      files += sentFiles;
      bytes += sentBytes;
    });
    const first = await stream.next();
    // The first chunk is taken but not yet written anywhere: nothing is told sent.
    expect(first.done).toBe(false);
    expect([files, bytes]).toEqual([0, 0]);
    for (let step = await stream.next(); ; step = await stream.next()) {
      expect(bytes).toBeGreaterThanOrEqual(before(files));
      if (files < list.length) expect(bytes).toBeLessThanOrEqual(before(files + 1));
      if (step.done) break;
    }
    expect([files, bytes]).toEqual([list.length, before(list.length)]);
  });
  it("bucketBody: a part of only an empty file is told sent as one file; nothing is ever told as no file and no byte", async () => {
    const calls: Array<[number, number]> = [];
    for await (const _chunk of bucketBody([assets[1]!]).stream((files, bytes) =>
      calls.push([files, bytes]),
    )) {
      // consumed
    }
    expect(calls).toEqual([[1, 0]]);
    // A bucket that ends with a streamed file: its last chunk (the closing boundary) holds no file.
    const tail: Array<[number, number]> = [];
    for await (const _chunk of bucketBody([assets[0]!, assets[2]!]).stream((files, bytes) =>
      tail.push([files, bytes]),
    )) {
      // consumed
    }
    expect(tail.some(([files, bytes]) => files === 0 && bytes === 0)).toBe(false);
    expect(tail.reduce((sum, [files]) => sum + files, 0)).toBe(2);
  });

  it("bucketBody: a file of exactly 256 KiB is read whole and batched with small ones; a streamed file of 3n+2 bytes counts every byte", async () => {
    const exact = Buffer.alloc(256 * 1024, 5);
    await writeFile(join(dir, "exact.bin"), exact);
    const exactAsset = {
      hash: "e".repeat(32),
      file: { path: "exact.bin", absPath: join(dir, "exact.bin"), size: exact.length, mtimeMs: 0, ino: 0 },
    };
    const chunks: Buffer[] = [];
    for await (const chunk of bucketBody([assets[0]!, exactAsset]).stream()) chunks.push(Buffer.from(chunk));
    expect(chunks).toHaveLength(1);

    const odd = Buffer.alloc(300_002, 9);
    await writeFile(join(dir, "odd.bin"), odd);
    const oddAsset = {
      hash: "f".repeat(32),
      file: { path: "odd.bin", absPath: join(dir, "odd.bin"), size: odd.length, mtimeMs: 0, ino: 0 },
    };
    let bytes = 0;
    for await (const _chunk of bucketBody([oddAsset]).stream((_files, sent) => (bytes += sent))) {
      // consumed
    }
    expect(bytes).toBe(300_002);
  });

  it("bucketBody: small parts are cut into chunks of about 1 MiB, and no chunk is empty", async () => {
    const list: BucketAsset[] = [];
    for (let i = 0; i < 900; i++) {
      list.push(await writtenAsset(`cut-${i}.bin`, Buffer.alloc(1500, i % 256), `${i}`.padStart(32, "d")));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of bucketBody(list).stream()) chunks.push(Buffer.from(chunk));
    // 900 parts of about 2.1 KB: two chunks, the first closed as it passed 1 MiB.
    expect(chunks).toHaveLength(2);
    expect(chunks[0]!.length).toBeGreaterThanOrEqual(1024 * 1024);
    expect(chunks[0]!.length).toBeLessThan(1024 * 1024 + 4 * 1024);
    const first = [];
    for await (const chunk of bucketBody([assets[2]!, assets[0]!]).stream()) first.push(Buffer.from(chunk));
    expect(first.every((chunk) => chunk.length > 0)).toBe(true);
  });

  it("bucketBody: small parts that fill exactly 1 MiB are a chunk of their own; the closing boundary follows alone", async () => {
    // Parts of .txt files with 32-character hashes have heads of 207 bytes: three files of
    // 196,608 bytes (262,144 in base64) and one of 195,981 make parts of exactly 1 MiB together.
    const list: BucketAsset[] = [];
    for (const [i, size] of [196_608, 196_608, 196_608, 195_981].entries()) {
      list.push(await writtenAsset(`fill-${i}.txt`, Buffer.alloc(size, 97 + i), `${i}`.padStart(32, "f")));
    }
    const body = bucketBody(list);
    const chunks: Buffer[] = [];
    for await (const chunk of body.stream()) chunks.push(Buffer.from(chunk));
    const boundary = body.contentType.split("boundary=")[1]!;
    expect(chunks.map((chunk) => chunk.length)).toEqual([1024 * 1024, `--${boundary}--\r\n`.length]);
  });

  it("bucketBody: a chunk is left whole until the one after it is taken, then its memory is filled again", async () => {
    // Chunks of about 1 MiB in turn, each of other bytes: 2,000 parts of 1,500 bytes.
    const list: BucketAsset[] = [];
    for (let i = 0; i < 2000; i++) {
      list.push(await writtenAsset(`turn-${i}.bin`, Buffer.alloc(1500, i % 256), `${i}`.padStart(32, "e")));
    }
    const taken: Array<{ chunk: Buffer; copy: Buffer }> = [];
    for await (const chunk of bucketBody(list).stream()) {
      // The chunk before this one is still as it was taken (the request may still be writing it).
      const before = taken.at(-1);
      if (before !== undefined) expect(before.chunk.equals(before.copy)).toBe(true);
      taken.push({ chunk, copy: Buffer.from(chunk) });
    }
    expect(taken.length).toBeGreaterThanOrEqual(4);
    // Two buffers in turn, not new memory for every chunk.
    // (Compared as booleans: a failed toBe would print megabytes of both.)
    const memory = taken.map(({ chunk }) => chunk.buffer);
    expect([memory[2] === memory[0], memory[3] === memory[1], memory[1] === memory[0]]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("bucketBody: a file with kept text is sent as that text, the file not read again (a snapshot of the hashing)", async () => {
    const name = "kept.txt";
    await writeFile(join(dir, name), "changed!");
    const text = Buffer.from(Buffer.from("as hash").toString("base64"), "latin1");
    const kept: BucketAsset = {
      hash: "k".repeat(32),
      file: { path: name, absPath: join(dir, name), size: 7, mtimeMs: 0, ino: 0 },
      text,
    };
    const body = bucketBody([kept, assets[0]!]);
    const chunks: Buffer[] = [];
    for await (const chunk of body.stream()) chunks.push(Buffer.from(chunk));
    const whole = Buffer.concat(chunks);
    expect(whole.length).toBe(body.length);
    expect(whole.includes(text)).toBe(true);
    expect(whole.includes(Buffer.from("changed!").toString("base64"))).toBe(false);
  });
});
