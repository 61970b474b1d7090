import { existsSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openSqlite } from "../../src/shared/database/sqlite.js";
import { migrateSqliteStore, openSqliteStore } from "../../src/store/index.js";
import { SQLITE_MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { tempDir } from "../support/server.js";
import { storeContract } from "./store-contract.js";

const dir = tempDir("deploy-store-");
afterAll(() => dir.cleanup());

let files = 0;
storeContract("sqlite file", () => openSqliteStore(join(dir.path, `store-${files++}`, "metadata.sqlite")));
storeContract("sqlite :memory:", () => openSqliteStore(":memory:"));

describe("sqlite store", () => {
  it("openSqliteStore: reopening a file keeps what was stored and migrates again without harm", async () => {
    const file = join(dir.path, "reopen", "metadata.sqlite");
    const first = await openSqliteStore(file);
    const record = {
      slug: "brave-otter-z9y8x",
      projectHash: "a".repeat(64),
      anonFingerprint: "b".repeat(64),
      tokenHash: "c".repeat(64),
      generatedHostname: "brave-otter-z9y8x.localhost",
      customHostname: null,
      domain: null,
      revisionId: null,
      createdAt: "2030-01-01T00:00:00.000Z",
      expiresAt: "2030-01-31T00:00:00.000Z",
    };
    expect(await first.createProject(record)).toBe(true);
    await first.close();
    const second = await openSqliteStore(file);
    try {
      expect(await second.getProject(record.slug)).toEqual(record);
    } finally {
      await second.close();
    }
  });

  it("openSqliteStore: the database and its WAL are readable by their owner only", async () => {
    const file = join(dir.path, "private", "metadata.sqlite");
    const store = await openSqliteStore(file);
    try {
      await store.ping();
      for (const path of [file, `${file}-wal`]) expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    } finally {
      await store.close();
    }
  });

  it("migrateSqliteStore: applies the migrations not applied yet, says which, and closes the file", async () => {
    const file = join(dir.path, "migrate", "metadata.sqlite");
    expect(await migrateSqliteStore(file)).toEqual({ applied: Object.keys(SQLITE_MIGRATIONS) });
    // Closed: its last connection gone, SQLite folded the write-ahead log into the file.
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(await migrateSqliteStore(file)).toEqual({ applied: [] });
    const store = await openSqliteStore(file);
    await store.close();
  });

  it("openSqliteStore: indexes and constraints carry the names later migrations refer to", async () => {
    const file = join(dir.path, "names", "metadata.sqlite");
    await (await openSqliteStore(file)).close();
    const db = openSqlite(file);
    try {
      const indexes = db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .pluck()
        .all();
      expect(indexes).toEqual([
        "deploys_expires_at",
        "projects_expires_at",
        "projects_pending_domains",
        "revisions_project_created",
      ]);
      const tableSql = (name: string) =>
        db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(name);
      expect(tableSql("deploys")).toContain('constraint "deploys_project_revision" unique');
      expect(tableSql("revisions")).toContain('constraint "revisions_project_revision" unique');
    } finally {
      db.close();
    }
  });
});
