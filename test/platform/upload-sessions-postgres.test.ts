import { addRevisionFile } from "../support/revision-files.js";
import { sql } from "kysely";
import { expect, it } from "vitest";
import { Pacer } from "../../src/shared/event-loop.js";
import { rowsOf } from "../../src/platform/selfhost/state/platform-db.js";
import { UploadSessions } from "../../src/platform/selfhost/sessions/upload-sessions.js";
import { postgresPlatformDatabases } from "../support/platform-database.js";
import { describePostgres } from "../support/postgres.js";

const openDatabase = postgresPlatformDatabases("upload-sessions-pg-");

const A = "a".repeat(32);
const B = "b".repeat(32);

await describePostgres("UploadSessions on PostgreSQL", () => {
  it("open, record: a slice whose hashes were all looked up before, a manifest all kept already and a pack of new blobs only (no empty IN lists, which PostgreSQL refuses)", async () => {
    const database = await openDatabase();
    const sessions = new UploadSessions(database);
    await sql`INSERT INTO blobs (hash, size, created_at, damaged) VALUES (${A}, 4, 0, 0)`.execute(
      database.db,
    );
    await addRevisionFile(database.db, { project: "blue", revision: "r1", path: "/a", hash: A });
    // 1,001 paths of one kept hash: the second slice names only a hash the first looked up.
    const entries = Array.from({ length: 1001 }, (_, i) => ({ path: `/${i}`, hash: A, size: 4 }));
    const opened = await sessions.open(
      { id: "s1", projectSlug: "blue", expiresAt: 1e12 },
      entries,
      0,
      new Pacer(60_000),
    );
    expect(opened).toEqual({ missing: [], addedBytes: 0, compressibleSizes: [] });
    expect(await sessions.missingCount("s1")).toBe(0);
    await sessions.open(
      { id: "s2", projectSlug: "blue", expiresAt: 1e12 },
      [{ path: "/b", hash: B, size: 3 }],
      0,
      new Pacer(60_000),
    );
    await sessions.record(
      "s2",
      { pack: { id: "p", size: 3, blobs: [{ hash: B, size: 3, offset: 0 }] }, mediaTypes: [] },
      5,
    );
    expect(await rowsOf(database.db, sql`SELECT id, live_bytes FROM packs`)).toEqual([
      { id: "p", live_bytes: 3 },
    ]);
    expect(await sessions.missingCount("s2")).toBe(0);
  });
});
