import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PackWriter } from "./pack-writer.js";

const MIB = 1024 * 1024;

/** Bytes that differ at every position, so a blob written at the wrong place shows. */
function bytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed) & 0xff;
  return out;
}

describe("PackWriter", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pack-writer-"));
    path = join(dir, "pack.tmp");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("append: bytes that fit in its buffer are taken at once, no promise; a promise only when the buffer is written", async () => {
    const writer = new PackWriter(path);
    const small = bytes(1000, 5);
    let returned = 0;
    let promises = 0;
    for (let i = 0; i < 1100; i++) {
      returned++;
      const appending = writer.append(small);
      if (appending) {
        promises++;
        await appending;
      }
      // The caller may reuse its bytes once append returns nothing, or once its promise resolves.
      small[0] = i & 0xff;
    }
    expect(returned).toBe(1100);
    // 1,100,000 bytes cross the 1 MiB buffer once.
    expect(promises).toBe(1);
    expect(await writer.finish()).toBe(1_100_000);
    const file = readFileSync(path);
    for (let i = 0; i < 1100; i++) {
      const expected = Buffer.from(bytes(1000, 5));
      if (i > 0) expected[0] = (i - 1) & 0xff;
      expect(file.subarray(i * 1000, (i + 1) * 1000).equals(expected)).toBe(true);
    }
  });

  it("append: blobs lie one after another; length says where the next starts, finish returns the size", async () => {
    const writer = new PackWriter(path);
    expect(writer.temporaryPath).toBe(path);
    const blobs = [bytes(10, 1), bytes(0, 2), bytes(4096, 3), bytes(1, 4)];
    const starts: number[] = [];
    for (const blob of blobs) {
      starts.push(writer.length);
      await writer.append(blob);
    }
    expect(starts).toEqual([0, 10, 10, 4106]);
    expect(writer.length).toBe(4107);
    expect(await writer.finish()).toBe(4107);
    expect(readFileSync(path).equals(Buffer.concat(blobs))).toBe(true);
  });

  it("append: blobs past the buffer, of its size and larger, keep their order and their bytes", async () => {
    const writer = new PackWriter(path);
    const blobs = [
      bytes(MIB - 10, 1), // fills the buffer but for 10 bytes
      bytes(10, 2), // exactly fills it
      bytes(11, 3), // does not fit: what is buffered goes first
      bytes(MIB, 4), // as large as the buffer: written on its own
      bytes(5, 5),
      bytes(3 * MIB + 7, 6), // larger: written on its own, after the 5 bytes buffered
      bytes(MIB - 1, 7),
    ];
    for (const blob of blobs) await writer.append(blob);
    const whole = Buffer.concat(blobs);
    expect(writer.length).toBe(whole.length);
    expect(await writer.finish()).toBe(whole.length);
    expect(readFileSync(path).equals(whole)).toBe(true);
  });

  it("finish: the bytes are made durable with one fdatasync of the pack's file before it resolves", async () => {
    // FileHandle's prototype, read off a handle: the calls are counted, the real ones still run.
    const probe = await open(join(dir, "probe"), "w");
    const datasync = vi.spyOn(Object.getPrototypeOf(probe) as FileHandle, "datasync");
    await probe.close();
    try {
      const writer = new PackWriter(path);
      await writer.append(bytes(3 * MIB, 1));
      await writer.append(bytes(10, 2));
      expect(datasync).not.toHaveBeenCalled();
      await writer.finish();
      expect(datasync).toHaveBeenCalledTimes(1);
    } finally {
      datasync.mockRestore();
    }
  });

  it("finish: nothing appended is an empty file of size 0", async () => {
    const writer = new PackWriter(path);
    expect(await writer.finish()).toBe(0);
    expect(readFileSync(path)).toHaveLength(0);
  });

  it("append: refused once finished or discarded, with nothing more written", async () => {
    const finished = new PackWriter(path);
    await finished.append(bytes(3, 1));
    await finished.finish();
    await expect(finished.append(bytes(3, 2))).rejects.toThrow("pack writer is closed");
    await expect(finished.finish()).rejects.toThrow("pack writer is closed");
    expect(readFileSync(path)).toHaveLength(3);

    const discarded = new PackWriter(join(dir, "other.tmp"));
    await discarded.discard();
    await expect(discarded.append(bytes(3, 3))).rejects.toThrow("pack writer is closed");
    expect(existsSync(join(dir, "other.tmp"))).toBe(false);
  });

  it("discard: closes and removes the temporary file, written or still buffered", async () => {
    const written = new PackWriter(path);
    await written.append(bytes(2 * MIB, 1));
    expect(existsSync(path)).toBe(true);
    await written.discard();
    expect(existsSync(path)).toBe(false);
    // Only buffered: no file was opened, and discarding leaves none.
    const buffered = new PackWriter(join(dir, "buffered.tmp"));
    await buffered.append(bytes(10, 2));
    await buffered.discard();
    expect(existsSync(join(dir, "buffered.tmp"))).toBe(false);
  });

  it("finish: a temporary name already taken is refused (EEXIST), the file there left as it was", async () => {
    writeFileSync(path, "someone else's");
    const writer = new PackWriter(path);
    await writer.append(bytes(10, 1));
    await expect(writer.finish()).rejects.toMatchObject({ code: "EEXIST" });
    expect(readFileSync(path, "utf8")).toBe("someone else's");
  });
});
