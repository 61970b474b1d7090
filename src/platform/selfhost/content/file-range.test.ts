import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { text } from "node:stream/consumers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closingAfterStreams, fileRange, ShortReadError } from "./file-range.js";
import { RangeStream } from "./range-stream.js";

let dir: string;
let file: FileHandle;
// 200,000 bytes: more than three of RangeStream's 64 KiB chunks.
const CONTENT = Buffer.alloc(200_000);
for (let i = 0; i < CONTENT.length; i++) CONTENT[i] = (i * 7) % 251;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "file-range-"));
  writeFileSync(join(dir, "pack"), CONTENT);
  file = await open(join(dir, "pack"), "r");
});
afterEach(async () => {
  await file.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

async function bytesOf(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Byte equality without a deep comparison of every element (slow on 100,000 of them). */
function expectBytes(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

describe("RangeStream", () => {
  it("RangeStream: bytes start to end inclusive, over several chunks", async () => {
    expectBytes(await bytesOf(new RangeStream(file, 10, 150_009)), CONTENT.subarray(10, 150_010));
    expectBytes(await bytesOf(new RangeStream(file, 5, 5)), CONTENT.subarray(5, 6));
    expectBytes(await bytesOf(new RangeStream(file, 0, 199_999)), CONTENT);
  });

  it("RangeStream: an error when the file ends before the range does, naming where, after the bytes there were", async () => {
    const stream = new RangeStream(file, 199_990, 200_009);
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    await expect(
      new Promise((resolve, reject) => stream.on("end", resolve).on("error", reject)),
    ).rejects.toThrow("file ends at 200000, before 200010");
    expectBytes(Buffer.concat(chunks), CONTENT.subarray(199_990));
  });

  it("RangeStream: destroyed during a read, it closes only once that read is done", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reads = 0;
    // The real file, its reads held at a gate: a read in flight while the stream is destroyed.
    const held = {
      read: (...args: Parameters<FileHandle["read"]>) => {
        reads++;
        return gate.then(() => file.read(...args));
      },
    } as unknown as FileHandle;
    const stream = new RangeStream(held, 0, 199_999);
    let closed = false;
    stream.once("close", () => (closed = true));
    stream.resume();
    await expect.poll(() => reads).toBe(1);
    stream.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    await expect.poll(() => closed).toBe(true);
    expect(reads).toBe(1);
  });

  it("RangeStream: a read error ends the stream with it", async () => {
    const stream = new RangeStream(file, 0, 99);
    await file.close();
    await expect(bytesOf(stream)).rejects.toMatchObject({ code: "EBADF" });
  });

  it("RangeStream: destroyed, it does not close the file and closes only once its read in flight is done", async () => {
    const stream = new RangeStream(file, 0, 199_999);
    const closed = new Promise<void>((resolve) => stream.once("close", resolve));
    stream.once("data", () => stream.destroy());
    await closed;
    // The file is still open for its other readers.
    const { bytesRead } = await file.read(Buffer.alloc(4), 0, 4, 0);
    expect(bytesRead).toBe(4);
  });
});

describe("fileRange", () => {
  it("fileRange: streams any part of the range, offsets within it", async () => {
    const range = fileRange(file, 1000, 100_000, () => undefined);
    expectBytes(await bytesOf(range.stream(0, 99_999)), CONTENT.subarray(1000, 101_000));
    expectBytes(await bytesOf(range.stream(10, 19)), CONTENT.subarray(1010, 1020));
  });

  it("fileRange: readAll gives the whole range", async () => {
    expectBytes(
      await fileRange(file, 1000, 100_000, () => undefined).readAll(),
      CONTENT.subarray(1000, 101_000),
    );
    expect(await fileRange(file, 0, 0, () => undefined).readAll()).toEqual(Buffer.alloc(0));
  });

  it("fileRange: readAll of a range past the file's end is a ShortReadError saying how much there was", async () => {
    const read = fileRange(file, 199_000, 2000, () => undefined).readAll();
    await expect(read).rejects.toBeInstanceOf(ShortReadError);
    await expect(read).rejects.toThrow("range ends after 1000 of 2000 bytes");
  });
});

describe("closingAfterStreams", () => {
  it("closingAfterStreams: close runs once, after the last stream made of it has closed", async () => {
    const streams: PassThrough[] = [];
    let closes = 0;
    const range = closingAfterStreams(
      () => {
        const stream = new PassThrough();
        streams.push(stream);
        return stream;
      },
      () => closes++,
    );
    const first = range.stream(0, 1);
    const second = range.stream(0, 1);
    range.close();
    expect(closes).toBe(0);
    first.destroy();
    await new Promise((resolve) => first.once("close", resolve));
    expect(closes).toBe(0);
    streams[1]!.end("x");
    expect(await text(second)).toBe("x");
    await new Promise((resolve) => setImmediate(resolve));
    expect(closes).toBe(1);
    range.close();
    expect(closes).toBe(1);
    expect(streams).toHaveLength(2);
  });

  it("closingAfterStreams: close with no stream open closes at once, and a stream closing before close does not", async () => {
    let closes = 0;
    const range = closingAfterStreams(
      () => new PassThrough(),
      () => closes++,
    );
    const stream = range.stream(0, 1);
    stream.destroy();
    await new Promise((resolve) => stream.once("close", resolve));
    expect(closes).toBe(0);
    range.close();
    expect(closes).toBe(1);
  });

  it("closingAfterStreams: without a readAll, reading whole is refused", async () => {
    const range = closingAfterStreams(
      () => new PassThrough(),
      () => undefined,
    );
    await expect(range.readAll()).rejects.toThrow("not readable whole");
  });
});
