import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SiteFile } from "../scan/walk-state.js";
import { loadLastDeploy, saveLastDeploy, statDigest } from "./last-deploy.js";

let configDir: string;
const RECORD = { projectSlug: "s", statDigest: "d1", manifestDigest: "m1", distinctHashes: 3 };
const file = (path: string, size = 1, mtimeMs = 1, ino = 1): SiteFile => ({
  path,
  absPath: `/x/${path}`,
  size,
  mtimeMs,
  ino,
});

beforeAll(async () => {
  configDir = await mkdtemp(join(tmpdir(), "last-deploy-"));
});
afterAll(() => rm(configDir, { recursive: true, force: true }));

describe("last-deploy", () => {
  it("statDigest: changes with any file's path, size, mtime or inode, and with the files' number", () => {
    const base = statDigest([file("a"), file("b")]);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(statDigest([file("a"), file("b")])).toBe(base);
    for (const changed of [
      [file("a"), file("c")],
      [file("a"), file("b", 2)],
      [file("a"), file("b", 1, 2)],
      [file("a"), file("b", 1, 1, 2)],
      [file("a")],
      // Fields never run together: "b" of size 11 is not "b1" of size 1.
      [file("a"), file("b1", 1)],
    ]) {
      expect(statDigest(changed)).not.toBe(base);
    }
    expect(statDigest([file("a"), file("b", 11)])).not.toBe(statDigest([file("a"), file("b1", 1)]));
  });

  it("statDigest: a file counts wherever it falls, past many chunks or with a path longer than one", () => {
    const many = Array.from({ length: 5000 }, (_, i) => file(`folder/deeper/page-${i}.html`, i, 1.5, i));
    const base = statDigest(many);
    const last = many.map((f, i) => (i === many.length - 1 ? { ...f, mtimeMs: 1.501 } : f));
    expect(statDigest(last)).not.toBe(base);
    const long = (end: string) => [file("a"), file(`${"é".repeat(40_000)}${end}`), file("z")];
    expect(statDigest(long("x"))).not.toBe(statDigest(long("y")));
    expect(statDigest(long("x"))).toBe(statDigest(long("x")));
  });

  it("statDigest: SHA-256 of each path's UTF-8, a NUL, then size, mtime and inode as little-endian doubles", () => {
    const files = Array.from({ length: 3000 }, (_, i) =>
      file(`dossier/é-${i}.html`, i * 1025, 1_700_000_000_123.456 + i / 7, 2 ** 40 + i),
    );
    const bytes = files.map((f) => {
      const numbers = Buffer.alloc(24);
      numbers.writeDoubleLE(f.size, 0);
      numbers.writeDoubleLE(f.mtimeMs, 8);
      numbers.writeDoubleLE(f.ino, 16);
      return Buffer.concat([Buffer.from(f.path, "utf8"), Buffer.from([0]), numbers]);
    });
    expect(statDigest(files)).toBe(createHash("sha256").update(Buffer.concat(bytes)).digest("hex"));
  });

  it("saveLastDeploy: a record read back as it was written, under hash-cache/<projectHash>.last.json", async () => {
    await saveLastDeploy(configDir, "p1", RECORD);
    expect(await loadLastDeploy(configDir, "p1")).toEqual(RECORD);
    const text = await readFile(join(configDir, "hash-cache", "p1.last.json"), "utf8");
    expect(JSON.parse(text)).toEqual({ version: 1, ...RECORD });
    expect(await loadLastDeploy(configDir, "p2")).toBeUndefined();
  });

  it("loadLastDeploy: a record of another version, with a field of the wrong type, or not JSON is none", async () => {
    const folder = join(configDir, "hash-cache");
    await mkdir(folder, { recursive: true });
    const cases: unknown[] = [
      { ...RECORD, version: 2 },
      { ...RECORD },
      { version: 1, ...RECORD, projectSlug: 1 },
      { version: 1, ...RECORD, statDigest: null },
      { version: 1, ...RECORD, manifestDigest: 5 },
      { version: 1, ...RECORD, distinctHashes: "3" },
      null,
    ];
    for (const [i, data] of cases.entries()) {
      await writeFile(join(folder, `bad${i}.last.json`), JSON.stringify(data));
      expect(await loadLastDeploy(configDir, `bad${i}`), JSON.stringify(data)).toBeUndefined();
    }
    await writeFile(join(folder, "broken.last.json"), "{");
    expect(await loadLastDeploy(configDir, "broken")).toBeUndefined();
  });

  it("loadLastDeploy: a record that cannot be read at all is an error, not a silent long way", async () => {
    await mkdir(join(configDir, "hash-cache", "folder.last.json"), { recursive: true });
    await expect(loadLastDeploy(configDir, "folder")).rejects.toMatchObject({ code: "CONFIG" });
  });
});
