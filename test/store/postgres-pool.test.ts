import { sql } from "kysely";
import pg from "pg";
import { expect, it } from "vitest";
import {
  createPostgresPool,
  isPostgresUrl,
  isUniqueViolation,
  openPostgres,
} from "../../src/shared/database/postgres.js";
import { describePostgres, testPostgres } from "../support/postgres.js";

it("isPostgresUrl: postgres:// and postgresql:// in any case, nothing else", () => {
  expect(isPostgresUrl("postgres://u@h/db")).toBe(true);
  expect(isPostgresUrl("POSTGRESQL://u@h/db")).toBe(true);
  expect(isPostgresUrl("postgresq://u@h/db")).toBe(false);
  expect(isPostgresUrl("x-postgres://u@h/db")).toBe(false);
  expect(isPostgresUrl("postgres:/u@h/db")).toBe(false);
  expect(isPostgresUrl("/var/data/metadata.sqlite")).toBe(false);
  expect(isPostgresUrl(undefined)).toBe(false);
});

it("isUniqueViolation: true for SQLSTATE 23505 only", () => {
  expect(isUniqueViolation(Object.assign(new Error("dup"), { code: "23505" }))).toBe(true);
  expect(isUniqueViolation(Object.assign(new Error("fk"), { code: "23503" }))).toBe(false);
  expect(isUniqueViolation(null)).toBe(false);
  expect(isUniqueViolation(undefined)).toBe(false);
});

it("createPostgresPool: a schema name that is not a plain lowercase identifier is refused before connecting", () => {
  for (const schema of ["Upper", "1starts_with_digit", "has-dash", "x; drop", "", "a".repeat(64)]) {
    expect(() => createPostgresPool({ url: "postgres://nobody@127.0.0.1:1/x", schema }), schema).toThrow(
      `invalid PostgreSQL schema name: ${schema}`,
    );
  }
  for (const schema of ["_x", "a", "a".repeat(63), "test_1_2"]) {
    const pool = createPostgresPool({ url: "postgres://nobody@127.0.0.1:1/x", schema });
    void pool.end();
  }
});

await describePostgres("createPostgresPool on PostgreSQL", () => {
  it("createPostgresPool: each session gets the statement and idle-transaction timeouts, the schema and the application name", async () => {
    const options = testPostgres({ statementTimeoutMs: 7_000 });
    const db = await openPostgres(options);
    try {
      const row = async (setting: string) =>
        (await sql<{ v: string }>`SELECT current_setting(${setting}) AS v`.execute(db)).rows[0]!.v;
      expect(await row("statement_timeout")).toBe("7s");
      expect(await row("idle_in_transaction_session_timeout")).toBe("14s");
      expect(await row("search_path")).toBe(options.schema);
      expect(await row("application_name")).toBe("static-deploy");
    } finally {
      await db.destroy();
    }
    const named = await openPostgres(testPostgres({ applicationName: "edge-7" }));
    try {
      const { rows } = await sql<{ v: string }>`SELECT current_setting('application_name') AS v`.execute(
        named,
      );
      expect(rows[0]!.v).toBe("edge-7");
      const timeout = await sql<{ v: string }>`SELECT current_setting('statement_timeout') AS v`.execute(
        named,
      );
      expect(timeout.rows[0]!.v).toBe("30s");
    } finally {
      await named.destroy();
    }
  });

  it("createPostgresPool: BIGINT values are read as numbers, other types as pg reads them", async () => {
    const db = await openPostgres(testPostgres());
    try {
      const { rows } = await sql<{ big: unknown; num: unknown; at: unknown }>`
        SELECT 9007199254740991::bigint AS big, 1.5::numeric AS num, '2026-01-02T03:04:05Z'::timestamptz AS at`.execute(
        db,
      );
      expect(rows[0]).toEqual({ big: 9007199254740991, num: "1.5", at: new Date("2026-01-02T03:04:05Z") });
    } finally {
      await db.destroy();
    }
  });

  it("openPostgres: without a schema, sessions keep the server's search_path and introspection reads public", async () => {
    const { schema: _named, ...options } = testPostgres();
    const db = await openPostgres(options);
    const plain = new pg.Client({ connectionString: options.url });
    await plain.connect();
    try {
      const { rows } = await sql<{ v: string }>`SELECT current_setting('search_path') AS v`.execute(db);
      const server = await plain.query<{ v: string }>("SELECT current_setting('search_path') AS v");
      expect(rows[0]!.v).toBe(server.rows[0]!.v);
      expect(await db.introspection.getSchemas()).toEqual([{ name: "public" }]);
    } finally {
      await plain.end();
      await db.destroy();
    }
  });

  it("openPostgres: introspection lists its own schema and that schema's tables and views, by name", async () => {
    const options = testPostgres();
    const db = await openPostgres(options);
    try {
      await sql`CREATE TABLE zebra (id int)`.execute(db);
      await sql`CREATE TABLE apple (id int PRIMARY KEY)`.execute(db);
      await sql`CREATE VIEW mango AS SELECT id FROM apple`.execute(db);
      expect(await db.introspection.getSchemas()).toEqual([{ name: options.schema }]);
      const table = (name: string, isView: boolean) => ({
        name,
        isView,
        columns: [],
        schema: options.schema,
      });
      const tables = [table("apple", false), table("mango", true), table("zebra", false)];
      expect(await db.introspection.getTables()).toEqual(tables);
      expect(await db.introspection.getMetadata()).toEqual({ tables });
    } finally {
      await db.destroy();
    }
  });

  it("createPostgresPool: an idle connection the server ends is told to onIdleError, and the pool goes on", async () => {
    const errors: Error[] = [];
    const options = testPostgres({ applicationName: `idle-victim-${process.pid}` });
    const db = await openPostgres({ ...options, onIdleError: (error) => errors.push(error) });
    const killer = new pg.Client({ connectionString: options.url });
    await killer.connect();
    try {
      await sql`SELECT 1`.execute(db);
      await killer.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
        [options.applicationName],
      );
      await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1);
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await killer.end();
      await db.destroy();
    }
  });

  it("openPostgres: creates its schema when missing, and opens it again when it exists", async () => {
    const options = testPostgres();
    for (let i = 0; i < 2; i++) {
      const db = await openPostgres(options);
      try {
        const { rows } = await sql<{ n: number }>`
          SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = ${options.schema}`.execute(
          db,
        );
        expect(rows[0]!.n).toBe(1);
      } finally {
        await db.destroy();
      }
    }
  });
});
