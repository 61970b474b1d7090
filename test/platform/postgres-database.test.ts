import { sql } from "kysely";
import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { firstOf, type PlatformDatabase, rowsOf } from "../../src/platform/selfhost/state/platform-db.js";
import {
  migratePostgresPlatform,
  openPostgresPlatformDatabase,
} from "../../src/platform/selfhost/state/postgres-database.js";
import { POSTGRES_PLATFORM_MIGRATIONS } from "../../src/platform/selfhost/state/migrations/platform-migrations.js";
import { MANIFEST_TABLES, type PlatformTables } from "../../src/platform/selfhost/state/platform-tables.js";
import { migrate } from "../../src/shared/database/migrator.js";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { REVISION_FILES } from "../support/revision-files.js";

const MIGRATIONS = [
  "0001_platform",
  "0002_manifest_notify",
  "0003_session_assets_by_hash",
  "0004_site_aliases",
  "0005_quota_charges",
  "0006_session_hashes",
  "0007_session_published",
  "0008_manifest_notify_project",
  "0009_manifests",
  "0010_delta_sessions",
  "0011_session_hashes_by_hash",
  "0012_charge_exact",
  "0013_manifest_hashes",
  "0014_session_assets_by_path",
];

await describePostgres("the platform database on PostgreSQL", () => {
  let admin: pg.Client;
  let opened: PlatformDatabase[];
  beforeEach(async () => {
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    opened = [];
  });
  afterEach(async () => {
    for (const database of opened) await database.close();
    await admin.end();
  });
  const open = async (options: ReturnType<typeof testPostgres>) => {
    const database = await openPostgresPlatformDatabase(options);
    opened.push(database);
    return database;
  };
  const tablesIn = async (schema: string, url = TEST_DATABASE_URL) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
        [schema],
      );
      return rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  };
  const listeners = async (schema: string) =>
    Number(
      (
        await admin.query<{ n: string }>(
          "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = $1",
          [`manifest listener ${schema}`],
        )
      ).rows[0]!.n,
    );

  it("migratePostgresPlatform: every migration once in the schema given, then none; openPostgresPlatformDatabase then opens it as it is", async () => {
    const options = testPostgres();
    expect(await migratePostgresPlatform(options)).toEqual({ applied: MIGRATIONS });
    expect(await migratePostgresPlatform(options)).toEqual({ applied: [] });
    expect(await tablesIn(options.schema)).toEqual([
      "blobs",
      "manifest_files",
      "manifest_hashes",
      "manifests",
      "packs",
      "platform_migration",
      "platform_migration_lock",
      "project_charges",
      "revision_rules",
      "revisions",
      "session_assets",
      "session_blobs",
      "session_hashes",
      "settings",
      "site_aliases",
      "site_hosts",
      "sites",
      "upload_sessions",
    ]);
    const database = await open(options);
    expect(database.dialect).toBe("postgres");
    expect(database.sqlite).toBeUndefined();
    const name = await firstOf(
      database.db,
      sql<{ name: string }>`SELECT current_setting('application_name') AS name`,
    );
    expect(name!.name).toMatch(/^static-deploy platform [0-9a-f]{12}$/);
  });

  it("migratePostgresPlatform: every table of MANIFEST_TABLES, and no other, notifies its writes with the project (a trigger per event; TRUNCATE with none)", async () => {
    const options = testPostgres();
    await migratePostgresPlatform(options);
    // pg_trigger, not information_schema.triggers: the latter leaves TRUNCATE triggers out.
    const { rows } = await admin.query<{ table: string; functions: string }>(
      `SELECT c.relname AS table, string_agg(p.proname, ' ' ORDER BY p.proname) AS functions
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_proc p ON p.oid = t.tgfoid
        WHERE n.nspname = $1 AND NOT t.tgisinternal AND p.proname LIKE 'manifest_notify%'
        GROUP BY c.relname ORDER BY 1`,
      [options.schema],
    );
    const functions =
      "manifest_notify manifest_notify_deleted manifest_notify_inserted manifest_notify_updated";
    expect(rows).toEqual([...MANIFEST_TABLES].sort().map((table) => ({ table, functions })));
  });

  it("openPostgresPlatformDatabase, migratePostgresPlatform: without a schema, the tables go to `platform`; each lets go of its connections, a failed migration too", async () => {
    // A database of its own, so that its connections can be counted.
    const name = `${testPostgres().schema}_default`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = `/${name}`;
    const connections = async () =>
      Number(
        (
          await admin.query<{ n: string }>("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = $1", [
            name,
          ])
        ).rows[0]!.n,
      );
    try {
      const broken = new pg.Client({ connectionString: url.href });
      await broken.connect();
      await broken.query("CREATE SCHEMA broken");
      await broken.query("CREATE TABLE broken.blobs (x INTEGER)");
      await broken.end();
      await expect(openPostgresPlatformDatabase({ url: url.href, schema: "broken" })).rejects.toThrow(
        /blobs/,
      );
      await expect.poll(connections).toBe(0);
      await (await openPostgresPlatformDatabase({ url: url.href })).close();
      await expect.poll(connections).toBe(0);
      expect(await tablesIn("platform", url.href)).toContain("session_blobs");
      expect(await migratePostgresPlatform({ url: url.href })).toEqual({ applied: [] });
      await expect.poll(connections).toBe(0);
    } finally {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    }
  });

  it("0006_session_hashes: a database of 0005 gets session_hashes with a row per hash of each open session (its smallest path, its largest size)", async () => {
    const options = testPostgres();
    const db = await openPostgres<PlatformTables>(options);
    try {
      const upTo = (last: string) =>
        Object.fromEntries(Object.entries(POSTGRES_PLATFORM_MIGRATIONS).filter(([name]) => name <= last));
      const before = upTo("0005_quota_charges");
      const migrations = { tableName: "platform_migration", schema: options.schema };
      expect(await migrate(db, before, migrations)).toEqual({ applied: MIGRATIONS.slice(0, 5) });
      await sql`INSERT INTO session_assets (session_id, path, hash, size, content_type) VALUES
        ('s1', '/b', 'h1', 3, 'text/plain'), ('s1', '/a', 'h1', 2, 'text/plain'),
        ('s1', '/c', 'h2', 1, 'text/css'), ('s2', '/z', 'h1', 7, 'text/plain')`.execute(db);
      expect(await migrate(db, upTo("0006_session_hashes"), migrations)).toEqual({
        applied: ["0006_session_hashes"],
      });
      expect(
        await rowsOf(
          db,
          sql`SELECT session_id, hash, path, size, media_type FROM session_hashes ORDER BY 1, 2`,
        ),
      ).toEqual([
        { session_id: "s1", hash: "h1", path: "/a", size: 3, media_type: null },
        { session_id: "s1", hash: "h2", path: "/c", size: 1, media_type: null },
        { session_id: "s2", hash: "h1", path: "/z", size: 7, media_type: null },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it("0009_manifests: a database of 0008 gets a full manifest per revision with its files (a failed publish's rows go), each revision naming its own, and no revision_files", async () => {
    const options = testPostgres();
    const db = await openPostgres<PlatformTables>(options);
    try {
      const upTo = (last: string) =>
        Object.fromEntries(Object.entries(POSTGRES_PLATFORM_MIGRATIONS).filter(([name]) => name <= last));
      const migrations = { tableName: "platform_migration", schema: options.schema };
      await migrate(db, upTo("0008_manifest_notify_project"), migrations);
      await sql`INSERT INTO revisions (project_slug, revision_id, created_at, row_bytes) VALUES
        ('blue', 'r1', 10, 600), ('blue', 'r2', 20, 300)`.execute(db);
      await sql
        .raw(
          `INSERT INTO revision_files (project_slug, revision_id, path, hash, content_type, compressible)
        VALUES ('blue', 'r1', '/a', 'h1', 'text/plain', 0), ('blue', 'r1', '/b', 'h2', 'text/css', 1),
        ('blue', 'r2', '/a', 'h3', 'text/plain', 0), ('blue', 'r9', '/x', 'h4', 'text/plain', 0)`,
        )
        .execute(db);
      expect(await migrate(db, upTo("0009_manifests"), migrations)).toEqual({ applied: ["0009_manifests"] });
      expect(
        await rowsOf(
          db,
          sql`SELECT project_slug, id, digest, base_id, file_count, row_bytes FROM manifests ORDER BY id`,
        ),
      ).toEqual([
        { project_slug: "blue", id: "r1", digest: null, base_id: null, file_count: 2, row_bytes: 600 },
        { project_slug: "blue", id: "r2", digest: null, base_id: null, file_count: 1, row_bytes: 300 },
      ]);
      expect(await rowsOf(db, sql`SELECT * FROM ${sql.raw(REVISION_FILES)} AS f ORDER BY 2, 3`)).toEqual([
        {
          project_slug: "blue",
          revision_id: "r1",
          path: "/a",
          hash: "h1",
          content_type: "text/plain",
          compressible: 0,
        },
        {
          project_slug: "blue",
          revision_id: "r1",
          path: "/b",
          hash: "h2",
          content_type: "text/css",
          compressible: 1,
        },
        {
          project_slug: "blue",
          revision_id: "r2",
          path: "/a",
          hash: "h3",
          content_type: "text/plain",
          compressible: 0,
        },
      ]);
      expect(await tablesIn(options.schema)).not.toContain("revision_files");
    } finally {
      await db.destroy();
    }
  });

  it("session_assets: keyed (session_id, path): a path names one hash in a session", async () => {
    const database = await open(testPostgres());
    const insert = (hash: string) =>
      sql`INSERT INTO session_assets (session_id, path, hash, size, content_type)
        VALUES ('s', '/a', ${hash}, 1, 'text/plain')`.execute(database.db);
    await insert("h1");
    await expect(insert("h2")).rejects.toThrow(/session_assets_pkey/);
    const key = await rowsOf(
      database.db,
      sql<{ name: string }>`SELECT a.attname AS name FROM pg_index i
        JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = 'session_assets'::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`,
    );
    expect(key.map((row) => row.name)).toEqual(["session_id", "path"]);
  });

  it("0011_session_hashes_by_hash: the index on hash is session_hashes', not session_assets' (whose key is its only index)", async () => {
    const database = await open(testPostgres());
    const indexes = await rowsOf(
      database.db,
      sql<{ name: string }>`SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid IN ('session_assets'::regclass, 'session_hashes'::regclass) ORDER BY 1`,
    );
    expect(indexes.map((row) => row.name)).toEqual([
      "session_assets_pkey",
      "session_hashes_hash",
      "session_hashes_pkey",
    ]);
  });

  it("transaction: run again when rolled back for a deadlock or a serialization failure, up to 3 attempts; each attempt's writes undone", async () => {
    const database = await open(testPostgres());
    let runs = 0;
    const failing = (codes: unknown[]) => {
      const run = ++runs;
      let attempts = 0;
      const work = async (trx: Parameters<Parameters<PlatformDatabase["transaction"]>[0]>[0]) => {
        attempts++;
        await sql`INSERT INTO settings (key, value) VALUES (${`run ${run} attempt ${attempts}`}, 'x')`.execute(
          trx,
        );
        if (codes.length > 0) throw codes.shift();
        return attempts;
      };
      return { work, attempts: () => attempts };
    };
    const deadlocks = failing([{ code: "40P01" }, { code: "40001" }]);
    expect(await database.transaction(deadlocks.work)).toBe(3);
    const keys = await rowsOf(database.db, sql<{ key: string }>`SELECT key FROM settings`);
    expect(keys.map((row) => row.key)).toEqual(["run 1 attempt 3"]);
    const always = failing([{ code: "40001" }, { code: "40001" }, { code: "40001", last: true }]);
    await expect(database.transaction(always.work)).rejects.toEqual({ code: "40001", last: true });
    expect(always.attempts()).toBe(3);
    for (const error of [{ code: "23505" }, { code: 40001 }, null, new Error("plain")]) {
      const once = failing([error]);
      await expect(database.transaction(once.work)).rejects.toBe(error);
      expect(once.attempts()).toBe(1);
    }
  });

  it("onManifestChange: each listener is called for every write of the manifest that names a project, another process's or this one's (a write may touch a project its writer did not name); one listening connection, ended by close", async () => {
    const options = testPostgres();
    const database = await open(options);
    const other = await open(options);
    await expect(database.manifestHeard()).resolves.toBeUndefined();
    const calls = { first: 0, second: 0 };
    let changed = () => undefined as void;
    database.onManifestChange(() => void calls.first++);
    database.onManifestChange(() => {
      calls.second++;
      changed();
    });
    // Once listening, each listener is called for what came before.
    await database.manifestHeard();
    expect(calls).toEqual({ first: 1, second: 1 });
    expect(await listeners(options.schema)).toBe(1);
    // Both writes are heard, in either order: resolved once the second listener was called twice more.
    const heard = new Promise<void>((resolve) => (changed = () => calls.second === 3 && resolve()));
    await sql`INSERT INTO sites (project_slug, expires_at) VALUES ('mine', 1)`.execute(database.db);
    await sql`INSERT INTO sites (project_slug, expires_at) VALUES ('theirs', 1)`.execute(other.db);
    await heard;
    expect(calls).toEqual({ first: 3, second: 3 });
    await database.close();
    expect(database.open).toBe(false);
    await database.close();
    await expect.poll(() => listeners(options.schema)).toBe(0);
    await expect(sql`SELECT 1`.execute(database.db)).rejects.toThrow();
  });

  it("onManifestChange: after close, no listening starts", async () => {
    const options = testPostgres();
    const database = await open(options);
    await database.close();
    let calls = 0;
    database.onManifestChange(() => void calls++);
    await database.manifestHeard();
    expect(calls).toBe(0);
    expect(await listeners(options.schema)).toBe(0);
  });
});
