import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { manifestDigest } from "../../src/core/manifest-digest.js";
import { rowCharge } from "../../src/platform/selfhost/quotas/quota-charges.js";
import { fillRowBytes } from "../../src/platform/selfhost/state/migrations/backfills.js";
import {
  POSTGRES_PLATFORM_MIGRATIONS,
  SQLITE_PLATFORM_MIGRATIONS,
} from "../../src/platform/selfhost/state/migrations/platform-migrations.js";
import { manifestsMigration as postgresManifests } from "../../src/platform/selfhost/state/migrations/postgres/0009_manifests.js";
import { manifestsMigration as sqliteManifests } from "../../src/platform/selfhost/state/migrations/sqlite/0003_manifests.js";
import {
  rowsOf,
  type SqlDialect,
  sqlitePlatformDatabase,
} from "../../src/platform/selfhost/state/platform-db.js";
import type { PlatformTables } from "../../src/platform/selfhost/state/platform-tables.js";
import { migrate, type Migrations } from "../../src/shared/database/migrator.js";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { openSqlite } from "../../src/shared/database/sqlite.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";
import { publishSession, testPlatform, type TestPlatform } from "../support/test-platform.js";

// The move of revision_files into manifests (sqlite/0003, postgres/0009, manifest-backfill.ts),
// two files a slice: revisions spanning slices, slices spanning revisions.

/** An engine's database just before the manifests migration, and that migration of 2-file slices. */
interface Engine {
  dialect: SqlDialect;
  /** A new database, and the schema its tables go to (PostgreSQL). */
  open(): Promise<{ db: Kysely<PlatformTables>; schema?: string }>;
  migrations: Migrations;
  /** The migration's name, and the one before it. */
  name: string;
  previous: string;
  /** SQL making any write of green/r2's `revisions` row fail (a crash there), and undoing it. */
  crash: { on: string; off: string };
  /** The platform on the database `open` gave last (closed first), migrated as it runs. */
  platform(): Promise<TestPlatform>;
}

const blob = (n: number) => n.toString(16).padStart(32, "0");

/** Paths and blobs of each revision; a blob's size is `n * 10`. blob(99) has no `blobs` row. */
const REVISIONS: Record<string, Record<string, [path: string, blob: number][]>> = {
  blue: {
    r1: [
      ["/index.html", 1],
      ["/a/style.css", 2],
      ["/ü.txt", 3],
    ],
    r2: [["/index.html", 4]],
    r3: [],
  },
  green: {
    r1: [
      ["/index.html", 1],
      ["/x.bin", 99],
    ],
    r2: [
      ["/index.html", 1],
      ["/a/style.css", 2],
    ],
  },
  // One order in UTF-16 (the digest's), another in UTF-8 (SQLite's) for the last two.
  red: {
    r1: [
      ["/z", 5],
      ["/é", 6],
      ["/\u{1F600}", 7],
      ["/\uFFFD", 8],
    ],
  },
};

async function writeBefore(db: Kysely<PlatformTables>, dialect: SqlDialect): Promise<void> {
  const blobs = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => sql`(${blob(n)}, ${n * 10}, 0)`);
  await sql`INSERT INTO blobs (hash, size, created_at) VALUES ${sql.join(blobs)}`.execute(db);
  let created = 0;
  for (const [project, revisions] of Object.entries(REVISIONS)) {
    for (const [revision, files] of Object.entries(revisions)) {
      await sql`INSERT INTO revisions (project_slug, revision_id, created_at)
        VALUES (${project}, ${revision}, ${++created})`.execute(db);
      for (const [path, n] of files) await addFile(db, project, revision, path, n);
    }
  }
  // A failed publish's files: no revisions row.
  await addFile(db, "blue", "r9", "/lost.html", 1);
  await sql.raw(fillRowBytes(dialect)).execute(db);
}

async function addFile(
  db: Kysely<PlatformTables>,
  project: string,
  revision: string,
  path: string,
  n: number,
) {
  await sql`INSERT INTO revision_files (project_slug, revision_id, path, hash, content_type, compressible)
    VALUES (${project}, ${revision}, ${path}, ${blob(n)}, ${`type/${n}`}, ${n % 2})`.execute(db);
}

/** Checks every revision's manifest: its files once each, its count, charge and digest. */
async function expectMoved(db: Kysely<PlatformTables>): Promise<void> {
  const manifests = await rowsOf(
    db,
    sql`SELECT project_slug, id, digest, base_id, file_count, row_bytes, created_at FROM manifests
      ORDER BY project_slug, id`,
  );
  const files = await rowsOf(
    db,
    sql<{ project_slug: string; manifest_id: string }>`SELECT * FROM manifest_files
      ORDER BY project_slug, manifest_id, hash`,
  );
  const expected = [];
  let created = 0;
  for (const [project, revisions] of Object.entries(REVISIONS)) {
    for (const [revision, list] of Object.entries(revisions)) {
      const entries = list.map(([path, n]) => ({ path, hash: blob(n), size: n * 10 }));
      expected.push({
        project_slug: project,
        id: revision,
        // As a publish of these files computes it (core/operations/prepare-deploy.ts); unknown
        // with a blob's size unknown.
        digest: list.some(([, n]) => n === 99) ? null : manifestDigest(entries),
        base_id: null,
        file_count: list.length,
        row_bytes: list.reduce((sum, [path]) => sum + rowCharge(path), 0),
        created_at: ++created,
      });
      const mine = files.filter((row) => row.project_slug === project && row.manifest_id === revision);
      expect(mine, `${project} ${revision}`).toEqual(
        [...list]
          .sort((a, b) => a[1] - b[1])
          .map(([path, n]) => ({
            project_slug: project,
            manifest_id: revision,
            path,
            hash: blob(n),
            content_type: `type/${n}`,
            compressible: n % 2,
            removed: 0,
          })),
      );
    }
  }
  expect(manifests).toEqual(expected);
  expect(files).toHaveLength(12);
  expect(
    await rowsOf(
      db,
      sql`SELECT project_slug, revision_id, manifest_id FROM revisions WHERE manifest_id IS NULL
      OR manifest_id <> revision_id`,
    ),
  ).toEqual([]);
}

function suite(engine: Engine) {
  let opened: Kysely<PlatformTables>[] = [];
  afterEach(async () => {
    for (const db of opened) await db.destroy();
    opened = [];
  });
  let options: { tableName: string; schema?: string };
  const open = async () => {
    const { db, schema } = await engine.open();
    opened.push(db);
    options = { tableName: "platform_migration", ...(schema === undefined ? {} : { schema }) };
    const before = Object.fromEntries(
      Object.entries(engine.migrations).filter(([name]) => name <= engine.previous),
    );
    await migrate(db, before, options);
    await writeBefore(db, engine.dialect);
    return db;
  };

  // The migration and those before it (later ones are another test's).
  const through = () =>
    Object.fromEntries(Object.entries(engine.migrations).filter(([name]) => name <= engine.name));

  it(`${engine.name}: every revision's files into its own manifest once, with its count, charge, and the digest a publish of them computes; a failed publish's files left behind`, async () => {
    const db = await open();
    expect(await migrate(db, through(), options)).toEqual({
      applied: [engine.name],
    });
    await expectMoved(db);
  });

  it(`${engine.name}: after a crash midway, the next run leaves each revision's files in its manifest once`, async () => {
    const db = await open();
    await sql.raw(engine.crash.on).execute(db);
    await expect(migrate(db, through(), options)).rejects.toThrow(/crash/);
    await sql.raw(engine.crash.off).execute(db);
    expect(await migrate(db, through(), options)).toEqual({
      applied: [engine.name],
    });
    await expectMoved(db);
  });

  it(`${engine.name}: a publish of a moved revision's files names its manifest (found by the digest the publish computes), writing no file row`, async () => {
    await (await open()).destroy();
    opened = [];
    const t = await engine.platform();
    try {
      const files = await rowsOf(t.database.db, sql`SELECT * FROM manifest_files`);
      // blue/r1's files; the project's latest full manifest (a delta's base) is r3's, empty.
      const entries = REVISIONS["blue"]!["r1"]!.map(([path, n]) => ({ path, hash: blob(n), size: n * 10 }));
      const expiresAt = new Date(t.clock.ms + 60_000);
      const session = await t.platform.openUploadSession({
        projectSlug: "blue",
        entries,
        expiresAt,
        manifestDigest: manifestDigest(entries),
      });
      expect(session.buckets).toEqual([]);
      await publishSession(t, "blue", "r7", session.sessionId, expiresAt);
      expect(
        await rowsOf(t.database.db, sql`SELECT manifest_id FROM revisions WHERE revision_id = 'r7'`),
      ).toEqual([{ manifest_id: "r1" }]);
      expect(await rowsOf(t.database.db, sql`SELECT * FROM manifest_files`)).toEqual(files);
    } finally {
      await t.remove();
    }
  });
}

describe("the manifests backfill on SQLite", () => {
  let dir: ReturnType<typeof tempDir> | undefined;
  afterEach(() => dir?.cleanup());
  suite({
    platform: () => testPlatform(undefined, undefined, undefined, dir!.path),
    dialect: "sqlite",
    open: async () => {
      dir = tempDir("manifests-backfill-");
      return { db: sqlitePlatformDatabase(openSqlite(join(dir.path, "platform.sqlite"))).db };
    },
    migrations: { ...SQLITE_PLATFORM_MIGRATIONS, "0003_manifests": sqliteManifests(2) },
    name: "0003_manifests",
    previous: "0002_session_published",
    crash: {
      on: `CREATE TRIGGER crash BEFORE UPDATE ON revisions
        WHEN NEW.project_slug = 'green' AND NEW.revision_id = 'r2' BEGIN SELECT RAISE(ABORT, 'crash'); END`,
      off: "DROP TRIGGER crash",
    },
  });
});

await describePostgres("the manifests backfill on PostgreSQL", () => {
  let last: ReturnType<typeof testPostgres>;
  suite({
    platform: () => testPlatform(undefined, undefined, last),
    dialect: "postgres",
    open: async () => {
      last = testPostgres();
      return { db: await openPostgres<PlatformTables>(last), schema: last.schema };
    },
    migrations: { ...POSTGRES_PLATFORM_MIGRATIONS, "0009_manifests": postgresManifests(2) },
    name: "0009_manifests",
    previous: "0008_manifest_notify_project",
    crash: {
      on: `CREATE FUNCTION crash() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          IF NEW.project_slug = 'green' AND NEW.revision_id = 'r2' THEN RAISE EXCEPTION 'crash'; END IF;
          RETURN NEW; END $$;
        CREATE TRIGGER crash BEFORE UPDATE ON revisions FOR EACH ROW EXECUTE FUNCTION crash()`,
      off: "DROP TRIGGER crash ON revisions; DROP FUNCTION crash()",
    },
  });
});
