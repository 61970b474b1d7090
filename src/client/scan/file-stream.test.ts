import { appendFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import {
  base64Chunks,
  base64Length,
  ENCODE_PIECE_BYTES,
  fileBytes,
  readSmallFile,
  readWholeInto,
  WHOLE_READ_BYTES,
  writeBase64,
} from "./file-stream.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "file-stream-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of source) items.push(item);
  return items;
}

async function failure(run: () => Promise<unknown>): Promise<CliError> {
  const error = await run().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe("file-stream", () => {
  it("base64Length: four characters per started group of three bytes", () => {
    expect([0, 1, 2, 3, 4, 6, 7].map(base64Length)).toEqual([0, 4, 4, 4, 8, 8, 12]);
  });

  it("base64Chunks: pieces that join into the base64 of the whole, each but the last without padding", async () => {
    const bytes = Buffer.from(Array.from({ length: 20 }, (_, i) => i * 13));
    async function* pieces() {
      for (const size of [1, 1, 5, 0, 2, 11]) yield bytes.subarray(0, size);
    }
    const whole = Buffer.concat([1, 1, 5, 0, 2, 11].map((size) => bytes.subarray(0, size)));
    const chunks = await collect(base64Chunks(pieces()));
    expect(chunks.join("")).toBe(whole.toString("base64"));
    for (const chunk of chunks.slice(0, -1)) expect(chunk).not.toContain("=");
    expect(chunks.every((chunk) => chunk !== "")).toBe(true);
    // Leftovers only: one last piece.
    async function* short() {
      yield Buffer.from("ab");
    }
    expect(await collect(base64Chunks(short()))).toEqual(["YWI="]);
    // A whole number of groups leaves nothing over: no empty last piece.
    async function* exact() {
      yield Buffer.from("ab");
      yield Buffer.from("cdef");
    }
    expect(await collect(base64Chunks(exact()))).toEqual(["YWJjZGVm"]);
    // Each whole group goes out as soon as it is read, not at the end.
    async function* groups() {
      yield Buffer.from("abc");
      yield Buffer.from("def");
    }
    expect(await collect(base64Chunks(groups()))).toEqual(["YWJj", "ZGVm"]);
  });

  it("writeBase64: the base64 of the bytes, written at the offset, across the pieces' borders", () => {
    const bytes = Buffer.from(Array.from({ length: 3 * ENCODE_PIECE_BYTES + 5 }, (_, i) => (i * 7) % 256));
    for (const length of [0, 1, 2, 3, ENCODE_PIECE_BYTES - 1, ENCODE_PIECE_BYTES + 1, bytes.length]) {
      const into = Buffer.alloc(3 + base64Length(length), "-");
      expect(writeBase64(bytes, length, into, 3)).toBe(base64Length(length));
      expect(into.toString("latin1")).toBe(`---${bytes.toString("base64", 0, length)}`);
    }
  });

  it("readWholeInto: a file read whole into the buffer; one that grew, shrank or is gone fails naming it", async () => {
    const path = join(dir, "whole.bin");
    const into = Buffer.alloc(1000);
    await writeFile(path, Buffer.alloc(600, 5));
    expect(readWholeInto(path, "site/whole.bin", 600, into)).toBe(600);
    expect(into.subarray(0, 600).equals(Buffer.alloc(600, 5))).toBe(true);
    for (const expected of [599, 601]) {
      const changed = await failure(async () => readWholeInto(path, "site/whole.bin", expected, into));
      expect([changed.code, changed.message]).toEqual([
        "FILE_CHANGED",
        `site/whole.bin changed while deploying (${expected} bytes expected)`,
      ]);
    }
    const gone = await failure(async () => readWholeInto(join(dir, "gone"), "site/gone", 1, into));
    expect(gone.code).toBe("READ_FAILED");
    expect(gone.message).toContain("cannot read site/gone");
  });

  it("fileBytes: a large file streamed whole; a small one read in one piece", async () => {
    const large = Buffer.alloc(WHOLE_READ_BYTES + 1000, 7);
    await writeFile(join(dir, "large.bin"), large);
    const chunks = await collect(fileBytes(join(dir, "large.bin"), "large.bin", large.length));
    // Read 192 KiB at a time (a multiple of 3: whole base64 groups per piece).
    expect(chunks.map((chunk) => chunk.length)).toEqual([3 * 64 * 1024, large.length - 3 * 64 * 1024]);
    expect(Buffer.concat(chunks).equals(large)).toBe(true);
    const small = Buffer.alloc(WHOLE_READ_BYTES, 3);
    await writeFile(join(dir, "small.bin"), small);
    const one = await collect(fileBytes(join(dir, "small.bin"), "small.bin", small.length));
    expect(one).toHaveLength(1);
    expect(one[0]!.equals(small)).toBe(true);
  });

  it("fileBytes: a file that grew or shrank since the walk is FILE_CHANGED naming it", async () => {
    const path = join(dir, "changing.bin");
    await writeFile(path, Buffer.alloc(WHOLE_READ_BYTES + 10));
    const grown = await failure(async () => {
      await appendFile(path, "more");
      return collect(fileBytes(path, "site/changing.bin", WHOLE_READ_BYTES + 10));
    });
    expect([grown.code, grown.message, grown.hint]).toEqual([
      "FILE_CHANGED",
      `site/changing.bin changed while deploying (${WHOLE_READ_BYTES + 10} bytes expected)`,
      "Run deploy again once the build has finished.",
    ]);
    const shrunk = await failure(() => collect(fileBytes(path, "site/changing.bin", WHOLE_READ_BYTES + 20)));
    expect(shrunk.code).toBe("FILE_CHANGED");
    await writeFile(join(dir, "tiny"), "abc");
    const small = await failure(async () => readSmallFile(join(dir, "tiny"), "tiny", 4));
    expect(small.message).toBe("tiny changed while deploying (4 bytes expected)");
  });

  it("fileBytes: a file that cannot be read is READ_FAILED naming it, large or small", async () => {
    const large = await failure(() =>
      collect(fileBytes(join(dir, "gone"), "site/gone", WHOLE_READ_BYTES + 1)),
    );
    expect(large.code).toBe("READ_FAILED");
    expect(large.message).toMatch(/^cannot read site\/gone: ENOENT/);
    const small = await failure(async () => readSmallFile(join(dir, "gone"), "site/gone", 1));
    expect(small.code).toBe("READ_FAILED");
    expect(small.message).toMatch(/^cannot read site\/gone: ENOENT/);
  });

  it("fileBytes: a file that grew gives no byte past the size expected before it fails", async () => {
    const path = join(dir, "grown.bin");
    await writeFile(path, Buffer.alloc(3 * 3 * 64 * 1024, 1));
    let given = 0;
    const error = await failure(async () => {
      for await (const chunk of fileBytes(path, "grown.bin", WHOLE_READ_BYTES + 10)) given += chunk.length;
    });
    expect(error.code).toBe("FILE_CHANGED");
    expect(given).toBe(3 * 64 * 1024);
  });
});
