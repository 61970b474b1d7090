import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContentDirectory } from "./content-directory.js";

const HASH = "0123456789abcdef0123456789abcdef";
const OTHER = "fedcba9876543210fedcba9876543210";

describe("ContentDirectory", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "content-directory-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("new ContentDirectory: temporary files and variants are cleared, blobs stored before packs are kept", () => {
    for (const sub of ["tmp", "variants/01", "blobs/01"]) mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, "tmp", "half-written"), "x");
    writeFileSync(join(dir, "variants", "01", `${HASH}.br`), "x");
    writeFileSync(join(dir, "blobs", "01", HASH), "kept");
    new ContentDirectory(dir);
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
    expect(existsSync(join(dir, "variants"))).toBe(false);
    expect(readFileSync(join(dir, "blobs", "01", HASH), "utf8")).toBe("kept");
  });

  it("loosePath, variantPath: blobs/<two hex>/<hash> and variants/<two hex>/<hash>.br or .gz; a malformed hash has no path", () => {
    const store = new ContentDirectory(dir);
    expect(store.loosePath(HASH)).toBe(join(dir, "blobs", "01", HASH));
    expect(store.variantPath(HASH, "br")).toBe(join(dir, "variants", "01", `${HASH}.br`));
    expect(store.variantPath(HASH, "gzip")).toBe(join(dir, "variants", "01", `${HASH}.gz`));
    for (const bad of ["../../etc/passwd", HASH.toUpperCase(), `${HASH}0`, ""]) {
      expect(() => store.loosePath(bad)).toThrow(`not an asset hash: ${JSON.stringify(bad)}`);
      expect(() => store.variantPath(bad, "br")).toThrow(`not an asset hash: ${JSON.stringify(bad)}`);
    }
  });

  it("looseHashes: every blob file stored before packs, names that are not hashes left out; none without the folder", () => {
    const store = new ContentDirectory(dir);
    expect([...store.looseHashes()]).toEqual([]);
    mkdirSync(join(dir, "blobs", "01"), { recursive: true });
    mkdirSync(join(dir, "blobs", "fe"), { recursive: true });
    writeFileSync(join(dir, "blobs", "01", HASH), "a");
    writeFileSync(join(dir, "blobs", "fe", OTHER), "b");
    writeFileSync(join(dir, "blobs", "fe", `${OTHER}.tmp`), "c");
    expect([...store.looseHashes()].sort()).toEqual([HASH, OTHER]);
  });

  it("deleteLoose, deleteVariants: remove the blob's file and both its variants; what is gone already is fine", async () => {
    const store = new ContentDirectory(dir);
    mkdirSync(join(dir, "blobs", "01"), { recursive: true });
    writeFileSync(store.loosePath(HASH), "a");
    for (const coding of ["br", "gzip"] as const) {
      await store.storeVariant(HASH, coding, (temporary) => writeFile(temporary, coding));
    }
    store.deleteLoose(HASH);
    store.deleteVariants(HASH);
    expect(existsSync(store.loosePath(HASH))).toBe(false);
    expect(existsSync(store.variantPath(HASH, "br"))).toBe(false);
    expect(existsSync(store.variantPath(HASH, "gzip"))).toBe(false);
    store.deleteLoose(HASH);
    store.deleteVariants(HASH);
  });

  it("storeVariant: written to a temporary file under tmp/, then renamed into place", async () => {
    const store = new ContentDirectory(dir);
    let temporary = "";
    await store.storeVariant(HASH, "br", async (path) => {
      temporary = path;
      await writeFile(path, "compressed");
      expect(existsSync(store.variantPath(HASH, "br"))).toBe(false);
    });
    expect(temporary).toMatch(new RegExp(`^${join(dir, "tmp")}/[0-9a-f]{24}$`));
    expect(existsSync(temporary)).toBe(false);
    expect(readFileSync(store.variantPath(HASH, "br"), "utf8")).toBe("compressed");
  });

  it("storeVariant: a write that fails leaves no variant and no temporary file, and its error goes on", async () => {
    const store = new ContentDirectory(dir);
    const failure = new Error("disk full");
    await expect(
      store.storeVariant(HASH, "gzip", async (path) => {
        await writeFile(path, "half");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(existsSync(store.variantPath(HASH, "gzip"))).toBe(false);
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
  });

  it("storeVariant: a write that fails before making its file fails with its own error", async () => {
    const store = new ContentDirectory(dir);
    const failure = new Error("out of memory before writing");
    await expect(store.storeVariant(HASH, "br", () => Promise.reject(failure))).rejects.toBe(failure);
  });

  it("new ContentDirectory: a content folder that does not exist yet is made, with its tmp/", () => {
    const fresh = join(dir, "not", "there", "yet");
    new ContentDirectory(fresh);
    expect(readdirSync(join(fresh, "tmp"))).toEqual([]);
  });

  it("newWriter: each pack starts in a temporary file of its own under tmp/", () => {
    const store = new ContentDirectory(dir);
    const paths = [store.newWriter().temporaryPath, store.newWriter().temporaryPath];
    for (const path of paths) expect(path).toMatch(new RegExp(`^${join(dir, "tmp")}/[0-9a-f]{24}$`));
    expect(paths[0]).not.toBe(paths[1]);
  });
});
