import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensurePrivateFile } from "./private-file.js";
import { openSqlite } from "./sqlite.js";

describe("openSqlite", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sqlite-unit-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("openSqlite: WAL, synchronous FULL, a 5 s busy timeout and foreign keys on", () => {
    const db = openSqlite(join(dir, "a.sqlite"));
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("synchronous", { simple: true })).toBe(2);
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it("openSqlite: a new file is created 0600 in a folder created 0700", () => {
    const file = join(dir, "nested", "deeper", "b.sqlite");
    openSqlite(file).close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "nested")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "nested", "deeper")).mode & 0o777).toBe(0o700);
  });

  it("openSqlite: `:memory:` opens an in-memory database and creates no file", () => {
    // A file would be made in the working directory, under that name.
    const stray = join(process.cwd(), ":memory:");
    expect(existsSync(stray)).toBe(false);
    const db = openSqlite(":memory:");
    expect(db.memory).toBe(true);
    db.close();
    expect(existsSync(stray)).toBe(false);
  });

  it("ensurePrivateFile: an existing file keeps its content", () => {
    const file = join(dir, "kept.txt");
    writeFileSync(file, "content", { mode: 0o600 });
    ensurePrivateFile(file);
    expect(readFileSync(file, "utf8")).toBe("content");
  });
});
