import { sql } from "kysely";
import pg from "pg";
import { expect, it } from "vitest";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { migratePostgresStore, openPostgresMetadata, openPostgresStore } from "../../src/store/index.js";
import { TestClock } from "../support/clock.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { storeContract } from "./store-contract.js";

await describePostgres("postgres store", () => {
  storeContract("postgres", () => openPostgresStore(testPostgres()));

  it("openPostgresStore: reopening a schema keeps what was stored and migrates again without harm", async () => {
    const options = testPostgres();
    const first = await openPostgresStore(options);
    await first.createProject({
      slug: "kept-otter-a1b2c",
      projectHash: "a".repeat(64),
      anonFingerprint: "b".repeat(64),
      tokenHash: "c".repeat(64),
      generatedHostname: "kept-otter-a1b2c.localhost",
      customHostname: null,
      domain: null,
      revisionId: null,
      createdAt: "2030-01-01T00:00:00.000Z",
      expiresAt: "2030-01-31T00:00:00.000Z",
    });
    await first.close();
    const second = await openPostgresStore(options);
    try {
      expect((await second.getProject("kept-otter-a1b2c"))?.generatedHostname).toBe(
        "kept-otter-a1b2c.localhost",
      );
    } finally {
      await second.close();
    }
  });

  it("migratePostgresStore: a migration that fails rejects with its error", async () => {
    const options = testPostgres();
    const db = await openPostgres<unknown>(options);
    try {
      // A table of that name already there, not the store's: the first migration cannot create it.
      await sql`CREATE TABLE projects (id integer)`.execute(db);
    } finally {
      await db.destroy();
    }
    await expect(migratePostgresStore(options)).rejects.toMatchObject({ code: "42P07" });
  });

  it("migratePostgresStore: closes its connection once done", async () => {
    const options = testPostgres();
    expect((await migratePostgresStore(options)).applied).not.toEqual([]);
    const db = await openPostgres<unknown>(options);
    try {
      // Idle sessions of that name: only a migration's connection left open (one running now
      // elsewhere is active or in its transaction); a closed one leaves a moment after.
      const idle = async () => {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE application_name = 'static-deploy migrate' AND state = 'idle'`.execute(db);
        return rows[0]?.n;
      };
      await expect.poll(idle, { timeout: 10_000 }).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it("migratePostgresStore: its session is named static-deploy migrate while it runs, so an operator can tell it in pg_stat_activity", async () => {
    // A database of its own: the Migrator looks at every table of its database and takes a
    // database-wide lock, so holding its lock table here stalls no other test's migration.
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const database = `${testPostgres().schema}_migrate`;
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${database}`;
    const gate = new pg.Client({ connectionString: url.href });
    try {
      await gate.connect();
      // The Migrator's lock table made beforehand and held: the migration waits on it, in view.
      await gate.query("CREATE SCHEMA store");
      await gate.query(
        "CREATE TABLE store.kysely_migration_lock (id varchar(255) PRIMARY KEY, is_locked integer NOT NULL DEFAULT 0)",
      );
      const { rows: me } = await gate.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      await gate.query("BEGIN");
      await gate.query("LOCK TABLE store.kysely_migration_lock IN ACCESS EXCLUSIVE MODE");
      const migration = migratePostgresStore({ url: url.href, schema: "store", connectTimeoutMs: 3_000 });
      // Asked outside the gate's transaction: inside one, pg_stat_activity is read once and kept.
      const waiting = async () => {
        const { rows } = await admin.query<{ name: string }>(
          "SELECT application_name AS name FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))",
          [me[0]!.pid],
        );
        return rows.map((row) => row.name);
      };
      await expect.poll(waiting, { timeout: 10_000 }).toEqual(["static-deploy migrate"]);
      await gate.query("COMMIT");
      expect((await migration).applied).not.toEqual([]);
    } finally {
      await gate.end();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  });

  it("openPostgresMetadata: close ends the pool the store and the limiters share", async () => {
    const metadata = await openPostgresMetadata(testPostgres());
    const limiter = metadata.limiter("closed", { limit: 5, windowSeconds: 60 }, new TestClock());
    await metadata.store.ping();
    await metadata.close();
    await expect(metadata.store.ping()).rejects.toThrow();
    await expect(limiter.hit("key")).rejects.toThrow();
  });
});
