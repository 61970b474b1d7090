import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterEach, beforeEach, expect, it } from "vitest";
import { Pacer } from "../../src/shared/event-loop.js";
import { firstOf, type PlatformDatabase } from "../../src/platform/selfhost/state/platform-db.js";
import { openPostgresPlatformDatabase } from "../../src/platform/selfhost/state/postgres-database.js";
import { POSTGRES_ROWS_PER_SLICE } from "../../src/platform/selfhost/sessions/session-rows.js";
import { UploadSessions } from "../../src/platform/selfhost/sessions/upload-sessions.js";
import { describePostgres, testPostgres } from "../support/postgres.js";

// A session of several slices on PostgreSQL, where a slice is written while the next is made.

const SLICES = 4;

/** Entries of distinct random hashes, SLICES slices of them, and their hashes in order. */
function manifest(): { entries: { path: string; hash: string; size: number }[]; hashes: string[] } {
  const entries = Array.from({ length: SLICES * POSTGRES_ROWS_PER_SLICE }, (_, i) => ({
    path: `/f/${i}.js`,
    hash: randomBytes(16).toString("hex"),
    size: i + 1,
  }));
  return { entries, hashes: entries.map((entry) => entry.hash).sort() };
}

await describePostgres("upload sessions of several slices on PostgreSQL", () => {
  let database: PlatformDatabase;
  let sessions: UploadSessions;
  beforeEach(async () => {
    database = await openPostgresPlatformDatabase(testPostgres(), { listen: false });
    sessions = new UploadSessions(database);
  });
  afterEach(async () => database.close());

  const count = async (table: string, sessionId: string) =>
    Number(
      (await firstOf(
        database.db,
        sql<{ n: string }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE session_id = ${sessionId}`,
      ))!.n,
    );

  it("open: every slice written, the missing hashes answered in hash order, each once, and the count of hashes recorded", async () => {
    const { entries, hashes } = manifest();
    const opened = await sessions.open(
      { id: "s1", projectSlug: "blue", expiresAt: 500 },
      entries,
      100,
      new Pacer(),
    );
    expect(opened.missing.map((asset) => asset.hash)).toEqual(hashes);
    // Every path a script (compressible): each fresh hash's size counted once for its variants.
    expect(opened.compressibleSizes).toHaveLength(hashes.length);
    expect(await count("session_assets", "s1")).toBe(entries.length);
    expect(await count("session_hashes", "s1")).toBe(hashes.length);
    expect(await sessions.missingCount("s1")).toBe(hashes.length);
  });

  it("open: a slice that fails leaves nothing of the session, whatever slice was in flight beside it", async () => {
    const { entries, hashes } = manifest();
    // A row of the third slice's first hash already there: that slice's insert fails.
    const third = hashes[2 * POSTGRES_ROWS_PER_SLICE]!;
    await sql`INSERT INTO session_hashes (session_id, hash, path, size) VALUES ('s2', ${third}, '/x', 1)`.execute(
      database.db,
    );
    await expect(
      sessions.open({ id: "s2", projectSlug: "blue", expiresAt: 500 }, entries, 100, new Pacer()),
    ).rejects.toThrow(/session_hashes_pkey/);
    for (const table of ["session_assets", "session_hashes", "session_blobs"]) {
      expect(await count(table, "s2"), table).toBe(0);
    }
    expect(await sessions.get("s2")).toBeUndefined();
  });
});
