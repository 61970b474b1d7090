import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DiskPackStorage } from "./disk-pack-storage.js";
import { PackDamagedError, PackMissingError } from "../pack-storage.js";
import { PackWriter } from "../pack-writer.js";

/**
 * How many of this process's descriptors are open on `path` (a deleted file's too, or only `path`
 * itself when `exactly`); Linux's /proc.
 */
function descriptorsOn(path: string, exactly = false): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return exactly ? target === path : target.startsWith(path);
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}

describe("DiskPackStorage", () => {
  let dir: string;
  let storage: DiskPackStorage;
  let writers = 0;
  /** A finished-to-be writer holding `content`, in a temporary file of the content directory. */
  const writerOf = async (content: string): Promise<PackWriter> => {
    const writer = new PackWriter(join(dir, `writer-${++writers}.tmp`));
    await writer.append(Buffer.from(content));
    return writer;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "local-packs-"));
    storage = new DiskPackStorage(dir);
  });
  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commit: the writer's file becomes packs/<24 hex>.pack, its folder synced, and its id and size are returned", async () => {
    const writer = await writerOf("hello pack");
    const probe = await open(join(dir, "probe"), "w");
    const sync = vi.spyOn(Object.getPrototypeOf(probe) as FileHandle, "sync");
    await probe.close();
    try {
      const { id, size } = await storage.commit(writer);
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      expect(size).toBe(10);
      expect(storage.kind).toBe("local");
      expect(storage.pathOf(id)).toBe(join(dir, "packs", `${id}.pack`));
      expect(readFileSync(storage.pathOf(id), "utf8")).toBe("hello pack");
      expect(existsSync(writer.temporaryPath)).toBe(false);
      expect(sync).toHaveBeenCalledTimes(1);
      // The folder was opened to be synced, and closed again.
      expect(descriptorsOn(join(dir, "packs"), true)).toBe(0);
      expect((await storage.commit(await writerOf("other"))).id).not.toBe(id);
    } finally {
      sync.mockRestore();
    }
  });

  it("pathOf: only a well-formed pack id has a path", () => {
    for (const bad of ["../x", "0123456789abcdef0123456", "0123456789ABCDEF01234567", ""]) {
      expect(() => storage.pathOf(bad)).toThrow(`not a pack id: ${JSON.stringify(bad)}`);
    }
  });

  it("openRange: PackDamagedError when the pack's size is not its row's or the range passes its end", async () => {
    const { id, size } = await storage.commit(await writerOf("twelve bytes"));
    await expect(storage.openRange(id, 0, 1, size + 1)).rejects.toThrow(
      new PackDamagedError(`its pack ${id} holds 12 bytes, its row says 13`),
    );
    await expect(storage.openRange(id, 0, 1, undefined)).rejects.toThrow(
      `its pack ${id} holds 12 bytes, its row says none`,
    );
    await expect(storage.openRange(id, 11, 2, size)).rejects.toBeInstanceOf(PackDamagedError);
  });

  it("openRange: PackMissingError (ENOENT) for a pack that is not there; delete makes a pack so, and deleting again is fine", async () => {
    const missing = "0123456789abcdef01234567";
    const error = await storage.openRange(missing, 0, 1, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackMissingError);
    expect(error).toMatchObject({ message: `pack ${missing} is missing`, code: "ENOENT" });
    const { id, size } = await storage.commit(await writerOf("doomed"));
    const range = await storage.openRange(id, 0, 6, size);
    expect((await range.readAll()).toString()).toBe("doomed");
    // Closed, its pack's handle is let go: left open, the collector closed it (DEP0137's warning).
    range.close();
    await storage.delete(id);
    expect(existsSync(storage.pathOf(id))).toBe(false);
    await expect(storage.openRange(id, 0, 6, size)).rejects.toBeInstanceOf(PackMissingError);
    await storage.delete(id);
  });

  it("openRange: other failures to open go on as they are", async () => {
    const id = "0123456789abcdef01234567";
    // A file where the packs folder should be: the open fails, and not for a missing pack.
    rmSync(join(dir, "packs"), { recursive: true });
    writeFileSync(join(dir, "packs"), "not a folder");
    await expect(storage.openRange(id, 0, 1, 1)).rejects.toMatchObject({ code: "ENOTDIR" });
  });

  it("openRange: a refused range leaves no file open once its pack is deleted; close lets go of the packs read", async () => {
    const damaged = await storage.commit(await writerOf("damaged"));
    await expect(storage.openRange(damaged.id, 0, 1, 99)).rejects.toBeInstanceOf(PackDamagedError);
    await storage.delete(damaged.id);
    await expect.poll(() => descriptorsOn(storage.pathOf(damaged.id))).toBe(0);

    const read = await storage.commit(await writerOf("read"));
    const range = await storage.openRange(read.id, 0, 4, read.size);
    expect((await range.readAll()).toString()).toBe("read");
    range.close();
    // Kept open for the next reader, until the storage is closed.
    expect(descriptorsOn(storage.pathOf(read.id))).toBe(1);
    await storage.close();
    await expect.poll(() => descriptorsOn(storage.pathOf(read.id))).toBe(0);
  });

  it("list: every pack file with its mtime, other names left out", async () => {
    const one = await storage.commit(await writerOf("one"));
    const two = await storage.commit(await writerOf("two"));
    utimesSync(storage.pathOf(one.id), 1_000, 1_000);
    writeFileSync(join(dir, "packs", "notes.txt"), "x");
    writeFileSync(join(dir, "packs", `${two.id}.pack.tmp`), "x");
    const listed = (await storage.list()).sort((a, b) => a.writtenAt - b.writtenAt);
    expect(listed.map((p) => p.id)).toEqual([one.id, two.id]);
    expect(listed[0]!.writtenAt).toBe(1_000_000);
    expect(readdirSync(join(dir, "packs"))).toHaveLength(4);
  });

  it("check: resolves while the packs folder is there, rejects once it is gone", async () => {
    await expect(storage.check()).resolves.toBeUndefined();
    rmSync(join(dir, "packs"), { recursive: true });
    await expect(storage.check()).rejects.toMatchObject({ code: "ENOENT" });
  });
});
