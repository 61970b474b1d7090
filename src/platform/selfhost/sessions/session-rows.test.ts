import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { UploadSessions } from "./upload-sessions.js";

let dir: string;
let database: PlatformDatabase;
let sessions: UploadSessions;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "session-rows-"));
  database = await openPlatformDatabase(dir);
  sessions = new UploadSessions(database);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const hash = (prefix: string) => prefix.padEnd(32, "0");
const [A, B, C, D] = [hash("a1"), hash("b2"), hash("c3"), hash("d4")];

const blobs = () =>
  rowsOf(
    database.db,
    sql`SELECT hash, size, created_at, pack, pack_offset, damaged FROM blobs ORDER BY hash`,
  );
const packs = () => rowsOf(database.db, sql`SELECT id, size, live_bytes, created_at FROM packs ORDER BY id`);

async function openWith(id: string, entries: { path: string; hash: string }[]): Promise<void> {
  const manifest = entries.map((entry) => ({ ...entry, size: 10 }));
  await sessions.open({ id, projectSlug: "blue", expiresAt: 1000 }, manifest, 0, new Pacer(60_000));
}

describe("UploadSessions.record", () => {
  it("record: a pack's new blobs get rows at their offsets and count as its live bytes; a blob held whole keeps its row; a damaged one is repaired to this pack, its old pack losing its bytes", async () => {
    await sql`INSERT INTO packs (id, size, live_bytes, created_at) VALUES ('old', 100, 100, 1)`.execute(
      database.db,
    );
    await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset, damaged) VALUES
      (${B}, 20, 1, 'old', 0, 0), (${C}, 30, 1, 'old', 20, 1), (${D}, 40, 1, NULL, NULL, 1)`.execute(
      database.db,
    );
    await openWith(
      "s1",
      [A, B, C, D].map((h, i) => ({ path: `/${i}`, hash: h })),
    );
    const stored = [
      { hash: D, size: 40, offset: 0 },
      { hash: C, size: 30, offset: 40 },
      { hash: B, size: 20, offset: 70 },
      { hash: A, size: 10, offset: 90 },
    ];
    await sessions.record("s1", { pack: { id: "new", size: 100, blobs: stored }, mediaTypes: [] }, 7);
    expect(await blobs()).toEqual([
      { hash: A, size: 10, created_at: 7, pack: "new", pack_offset: 90, damaged: 0 },
      { hash: B, size: 20, created_at: 1, pack: "old", pack_offset: 0, damaged: 0 },
      { hash: C, size: 30, created_at: 1, pack: "new", pack_offset: 40, damaged: 0 },
      { hash: D, size: 40, created_at: 1, pack: "new", pack_offset: 0, damaged: 0 },
    ]);
    expect(await packs()).toEqual([
      { id: "new", size: 100, live_bytes: 80, created_at: 7 },
      { id: "old", size: 100, live_bytes: 70, created_at: 1 },
    ]);
    expect(await sessions.missingCount("s1")).toBe(0);
  });

  it("record: over ROWS_PER_STATEMENT blobs in one pack, every one recorded and counted", async () => {
    const many = Array.from({ length: 2100 }, (_, i) => ({
      hash: hash(i.toString(16).padStart(4, "0")),
      size: 3,
      offset: i * 3,
    }));
    await sessions.record("s1", { pack: { id: "p", size: 6300, blobs: many }, mediaTypes: [] }, 0);
    expect(await packs()).toEqual([{ id: "p", size: 6300, live_bytes: 6300, created_at: 0 }]);
    expect(
      await rowsOf(database.db, sql`SELECT COUNT(*) AS n FROM session_blobs WHERE session_id = 's1'`),
    ).toEqual([{ n: 2100 }]);
  });

  it("record: the session has what was already held; the last media type declared for a hash applies to this session's paths of it, not another's", async () => {
    await openWith("s1", [
      { path: "/a.txt", hash: A },
      { path: "/b.txt", hash: B },
      { path: "/c.txt", hash: C },
    ]);
    await openWith("s2", [{ path: "/a.txt", hash: A }]);
    const mediaTypes = [
      { hash: A, mediaType: "image/png" },
      { hash: B, mediaType: "font/woff2" },
      { hash: A, mediaType: "image/gif" },
    ];
    await sessions.record("s1", { alreadyHeld: [A, B], mediaTypes }, 0);
    expect(
      await rowsOf(
        database.db,
        sql`SELECT a.session_id, a.path, COALESCE(h.media_type, a.content_type) AS content_type
          FROM session_assets a JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
          ORDER BY a.session_id, a.path`,
      ),
    ).toEqual([
      { session_id: "s1", path: "/a.txt", content_type: "image/gif" },
      { session_id: "s1", path: "/b.txt", content_type: "font/woff2" },
      { session_id: "s1", path: "/c.txt", content_type: "text/plain; charset=utf-8" },
      { session_id: "s2", path: "/a.txt", content_type: "text/plain; charset=utf-8" },
    ]);
    expect(await sessions.missingCount("s1")).toBe(1);
    expect(await sessions.missingCount("s2")).toBe(1);
    expect(await packs()).toEqual([]);
  });
});
