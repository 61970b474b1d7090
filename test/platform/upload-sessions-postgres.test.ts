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

  it("record: a bucket's blobs and its declared media types, the last one of a hash kept, for this session's paths only", async () => {
    const database = await openDatabase();
    const sessions = new UploadSessions(database);
    const open = (id: string, entries: { path: string; hash: string; size: number }[]) =>
      sessions.open({ id, projectSlug: "blue", expiresAt: 1e12 }, entries, 0, new Pacer(60_000));
    await open("s1", [
      { path: "/a.txt", hash: A, size: 4 },
      { path: "/a2.txt", hash: A, size: 4 },
      { path: "/b.txt", hash: B, size: 3 },
    ]);
    await open("s2", [{ path: "/a.txt", hash: A, size: 4 }]);
    const mediaTypes = [
      { hash: A, mediaType: "image/png" },
      { hash: B, mediaType: "font/woff2" },
      { hash: A, mediaType: "text/css" },
    ];
    const blobs = [
      { hash: B, size: 3, offset: 4 },
      { hash: A, size: 4, offset: 0 },
    ];
    await sessions.record("s1", { pack: { id: "p", size: 7, blobs }, mediaTypes }, 5);
    expect(
      await rowsOf(
        database.db,
        sql`SELECT a.session_id, a.path, COALESCE(h.media_type, a.content_type) AS content_type,
            COALESCE(h.compressible, a.compressible) AS compressible
          FROM session_assets a JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
          ORDER BY a.session_id, a.path`,
      ),
    ).toEqual([
      { session_id: "s1", path: "/a.txt", content_type: "text/css", compressible: 1 },
      { session_id: "s1", path: "/a2.txt", content_type: "text/css", compressible: 1 },
      { session_id: "s1", path: "/b.txt", content_type: "font/woff2", compressible: 0 },
      { session_id: "s2", path: "/a.txt", content_type: "text/plain; charset=utf-8", compressible: 1 },
    ]);
    expect(
      await rowsOf(database.db, sql`SELECT hash, size, pack, pack_offset, damaged FROM blobs ORDER BY hash`),
    ).toEqual([
      { hash: A, size: 4, pack: "p", pack_offset: 0, damaged: 0 },
      { hash: B, size: 3, pack: "p", pack_offset: 4, damaged: 0 },
    ]);
    expect(await rowsOf(database.db, sql`SELECT id, live_bytes FROM packs`)).toEqual([
      { id: "p", live_bytes: 7 },
    ]);
    expect(await sessions.missingCount("s1")).toBe(0);
  });
});
