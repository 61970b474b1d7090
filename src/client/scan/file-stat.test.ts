import { lstatSync } from "node:fs";
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lstatFile } from "./file-stat.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "file-stat-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("lstatFile", () => {
  it("lstatFile: gives lstatSync's size, mtime (to the fraction of a millisecond) and inode, file after file", async () => {
    const paths = ["a.html", "b.css", "c.bin"].map((name) => join(dir, name));
    for (const [i, path] of paths.entries()) {
      await writeFile(path, "x".repeat(10 ** i * 7));
      await utimes(path, 1_700_000_000.123_456 + i, 1_600_000_000.987_654 + i * 0.5);
    }
    for (const path of paths) {
      const { size, mtimeMs, ino } = lstatSync(path);
      expect(lstatFile(path)).toEqual({ size, mtimeMs, ino });
    }
  });

  it("lstatFile: a file that is not there throws lstatSync's own error", () => {
    const missing = join(dir, "gone.txt");
    const expected = thrownBy(() => lstatSync(missing));
    const got = thrownBy(() => lstatFile(missing));
    expect(got).toBeInstanceOf(Error);
    expect((got as NodeJS.ErrnoException).code).toBe("ENOENT");
    expect((got as Error).message).toBe((expected as Error).message);
  });
});

/** What `run` throws (undefined: it returned). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
