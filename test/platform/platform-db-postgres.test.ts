import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { BlobReader } from "../../src/platform/selfhost/content/blob-reader.js";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import { DiskPackStorage } from "../../src/platform/selfhost/content/disk/disk-pack-storage.js";
import { ContentDirectory } from "../../src/platform/selfhost/content/content-directory.js";
import {
  lockContent,
  lockKeys,
  type PlatformDatabase,
} from "../../src/platform/selfhost/state/platform-db.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";

// The unit tests beside platform-db.ts and blob-reader.ts run on SQLite; these are what differs on PostgreSQL.
await describePostgres("platform-db on PostgreSQL", () => {
  let dir: ReturnType<typeof tempDir>;
  let database: PlatformDatabase;
  let admin: pg.Client;
  beforeEach(async () => {
    dir = tempDir("platform-db-postgres-");
    database = await openPlatformDatabase(dir.path, testPostgres());
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });
  afterEach(async () => {
    await admin.end();
    await database.close();
    dir.cleanup();
  });

  /** The advisory locks held by backend `pid`: key name (of `names`) and mode, granted or waited for. */
  const advisoryLocks = async (pid: number, names: string[]) => {
    const { rows } = await admin.query<{ name: string; mode: string; granted: boolean }>(
      `SELECT n.name, l.mode, l.granted FROM pg_locks l
        JOIN unnest($2::text[]) AS n(name) ON l.objid::int = hashtext(n.name)
        WHERE l.locktype = 'advisory' AND l.pid = $1 ORDER BY n.name`,
      [pid, names],
    );
    return rows.map((row) => `${row.name} ${row.mode}${row.granted ? "" : " waiting"}`);
  };
  /** Runs `work` in a transaction and holds it open until the returned `release` is called. */
  const holding = async (work: Parameters<PlatformDatabase["transaction"]>[0]) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let pid!: (value: number) => void;
    const started = new Promise<number>((resolve) => (pid = resolve));
    const done = database.db.transaction().execute(async (trx) => {
      const me = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
      pid(me.rows[0]!.pid);
      await work(trx);
      await released;
    });
    return { pid: await started, release, done };
  };

  it("openPlatformDatabase: with PostgreSQL options, the database is on PostgreSQL", () => {
    expect(database.dialect).toBe("postgres");
  });

  it("lockContent: shared takes the content lock in share mode, exclusive in exclusive mode, to the end of the transaction", async () => {
    const names = ["platform content"];
    /** Waits until `mode` is granted (another test file's platform may hold the lock a moment), then ends it. */
    const seen = async (mode: "shared" | "exclusive", expected: string) => {
      const held = await holding((trx) => lockContent(database, trx, mode));
      try {
        await expect.poll(() => advisoryLocks(held.pid, names), { timeout: 20_000 }).toEqual([expected]);
      } finally {
        held.release();
        await held.done;
      }
      expect(await advisoryLocks(held.pid, names)).toEqual([]);
    };
    await seen("shared", "platform content ShareLock");
    await seen("exclusive", "platform content ExclusiveLock");
  });

  it("lockKeys: each distinct key once, in sorted order (the first taken while a later one is waited for)", async () => {
    const names = ["platform a", "platform b", "platform c"];
    const first = await holding((trx) => lockKeys(database, trx, ["b"]));
    const second = await holding((trx) => lockKeys(database, trx, ["c", "b", "a", "c"]));
    try {
      await expect
        .poll(() => advisoryLocks(second.pid, names))
        .toEqual(["platform a ExclusiveLock", "platform b ExclusiveLock waiting"]);
    } finally {
      first.release();
      await first.done;
    }
    await expect
      .poll(() => advisoryLocks(second.pid, names))
      .toEqual(["platform a ExclusiveLock", "platform b ExclusiveLock", "platform c ExclusiveLock"]);
    second.release();
    await second.done;
  });

  it("BlobReader: on PostgreSQL, a packed blob from its offset and a loose blob whole", async () => {
    const packs = new ContentDirectory(dir.path);
    const storage = new DiskPackStorage(dir.path);
    try {
      const writer = packs.newWriter();
      await writer.append(Buffer.from("xxpacked"));
      const { id } = await storage.commit(writer);
      await sql`INSERT INTO packs (id, size, live_bytes, created_at) VALUES (${id}, 8, 6, 0)`.execute(
        database.db,
      );
      const [packed, loose] = ["a".repeat(32), "b".repeat(32)];
      await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset)
        VALUES (${packed}, 6, 0, ${id}, 2), (${loose}, 5, 0, NULL, NULL)`.execute(database.db);
      const path = packs.loosePath(loose);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, "loose");
      const reader = new BlobReader(database, packs, storage);
      expect((await reader.read(packed)).toString()).toBe("packed");
      expect((await reader.read(loose)).toString()).toBe("loose");
      rmSync(path);
    } finally {
      await storage.close();
    }
  });
});
