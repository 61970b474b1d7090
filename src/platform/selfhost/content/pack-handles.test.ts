import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PackHandles } from "./pack-handles.js";

/** Whether a handle was closed (a closed FileHandle's fd is -1); closing is asynchronous. */
const closed = (file: FileHandle) => expect.poll(() => file.fd).toBe(-1);

describe("PackHandles", () => {
  let dir: string;
  let opened: string[];
  let handles: PackHandles;
  const pathOf = (id: string) => {
    opened.push(id);
    return join(dir, id);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pack-handles-"));
    opened = [];
    for (const id of ["a", "b", "c"])
      writeFileSync(join(dir, id), `pack ${id}`.repeat(id.charCodeAt(0) - 96));
    handles = new PackHandles(pathOf, 2);
  });
  afterEach(() => {
    handles.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it("acquire: the file and its size; the same open file for every reader, opened once, at once too", async () => {
    const [one, two] = await Promise.all([handles.acquire("b"), handles.acquire("b")]);
    const three = await handles.acquire("b");
    expect(one.size).toBe("pack b".length * 2);
    expect(two.file).toBe(one.file);
    expect(three.file).toBe(one.file);
    expect(opened).toEqual(["b"]);
    const buffer = Buffer.alloc(one.size);
    await one.file.read(buffer, 0, one.size, 0);
    expect(buffer.toString()).toBe("pack bpack b");
    for (const reader of [one, two, three]) reader.release();
  });

  it("acquire: a pack that is gone rejects with ENOENT; once it exists it opens", async () => {
    await expect(handles.acquire("d")).rejects.toMatchObject({ code: "ENOENT" });
    writeFileSync(join(dir, "d"), "late");
    const handle = await handles.acquire("d");
    expect(handle.size).toBe(4);
    expect(opened).toEqual(["d", "d"]);
    handle.release();
  });

  it("forget: a handle in use stays open until its last reader releases it; a second release counts once", async () => {
    const first = await handles.acquire("a");
    const second = await handles.acquire("a");
    unlinkSync(join(dir, "a"));
    handles.forget("a");
    first.release();
    first.release();
    // Still readable through the handle, though the file was deleted.
    const buffer = Buffer.alloc(6);
    await second.file.read(buffer, 0, 6, 0);
    expect(buffer.toString()).toBe("pack a");
    expect(second.file.fd).not.toBe(-1);
    second.release();
    await closed(second.file);
    await expect(handles.acquire("a")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("forget: an unused handle is closed at once, and the next acquire opens the file again", async () => {
    const handle = await handles.acquire("a");
    handle.release();
    expect(handle.file.fd).not.toBe(-1);
    handles.forget("a");
    await closed(handle.file);
    handles.forget("a");
    handles.forget("never-opened");
    const again = await handles.acquire("a");
    expect(again.file).not.toBe(handle.file);
    expect(opened).toEqual(["a", "a"]);
    again.release();
  });

  it("acquire: past maxOpen the least recently opened unused handle is closed; the others stay", async () => {
    const a = await handles.acquire("a");
    a.release();
    const b = await handles.acquire("b");
    b.release();
    expect(a.file.fd).not.toBe(-1);
    const c = await handles.acquire("c");
    c.release();
    await closed(a.file);
    expect([b.file.fd, c.file.fd].includes(-1)).toBe(false);
    const bAgain = await handles.acquire("b");
    expect(bAgain.file).toBe(b.file);
    bAgain.release();
    expect(opened).toEqual(["a", "b", "c"]);
  });

  it("acquire: a handle in use that leaves the cache is closed only when released", async () => {
    const a = await handles.acquire("a");
    (await handles.acquire("b")).release();
    (await handles.acquire("c")).release();
    expect(a.file.fd).not.toBe(-1);
    a.release();
    await closed(a.file);
  });

  it("closeAll: unused handles close now, handles in use when released", async () => {
    const used = await handles.acquire("a");
    const unused = await handles.acquire("b");
    unused.release();
    handles.closeAll();
    await closed(unused.file);
    expect(used.file.fd).not.toBe(-1);
    used.release();
    await closed(used.file);
  });
});
