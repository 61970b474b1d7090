import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensurePrivateFile } from "../private-file.js";
import { openSqlite, withStatementCache } from "./sqlite.js";

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

describe("withStatementCache", () => {
  const texts = (from: number, to: number) =>
    Array.from({ length: to - from }, (_, i) => `SELECT ${from + i}`);

  it("withStatementCache: one statement per SQL text, prepared once and run again; close closes the database", () => {
    const sqlite = openSqlite(":memory:");
    const db = withStatementCache(sqlite);
    const first = db.prepare("SELECT 1 AS one");
    expect(db.prepare("SELECT 1 AS one")).toBe(first);
    expect(db.prepare("SELECT 2 AS two")).not.toBe(first);
    expect(first.get()).toEqual({ one: 1 });
    db.close();
    expect(sqlite.open).toBe(false);
  });

  it("withStatementCache: keeps 512 texts; the 513th drops the least recently used, not one used since", () => {
    const db = withStatementCache(openSqlite(":memory:"));
    const kept = new Map(texts(0, 512).map((sql) => [sql, db.prepare(sql)]));
    // Used again: now the most recent, so `SELECT 1` is the oldest.
    expect(db.prepare("SELECT 0")).toBe(kept.get("SELECT 0"));
    db.prepare("SELECT 512");
    for (const sql of ["SELECT 0", "SELECT 2", "SELECT 511"])
      expect(db.prepare(sql), sql).toBe(kept.get(sql));
    expect(db.prepare("SELECT 1")).not.toBe(kept.get("SELECT 1"));
    db.close();
  });

  it("withStatementCache: at 512 texts nothing is dropped yet", () => {
    const db = withStatementCache(openSqlite(":memory:"));
    const kept = new Map(texts(0, 512).map((sql) => [sql, db.prepare(sql)]));
    for (const [sql, statement] of [...kept].reverse()) expect(db.prepare(sql), sql).toBe(statement);
    db.close();
  });
});
