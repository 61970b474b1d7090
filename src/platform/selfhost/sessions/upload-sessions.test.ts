import { addRevisionFile } from "../../../../test/support/revision-files.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { sortByHash } from "./hash-order.js";
import { placesByPath } from "./path-order.js";
import { UploadSessions } from "./upload-sessions.js";
import { hashOf } from "../../../../test/support/test-platform.js";

let dir: string;
let database: PlatformDatabase;
let sessions: UploadSessions;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "upload-sessions-"));
  database = await openPlatformDatabase(dir);
  sessions = new UploadSessions(database);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const [A, B, C, D] = ["a", "b", "c", "d"].map(hashOf) as [string, string, string, string];
const slow = () => new Pacer(60_000);

/** A blob row (whole unless `damaged`), and a kept revision of `project` naming it. */
async function kept(project: string, hash: string, size: number, damaged = 0): Promise<void> {
  await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset, damaged)
    VALUES (${hash}, ${size}, 0, 'p', 0, ${damaged}) ON CONFLICT DO NOTHING`.execute(database.db);
  await addRevisionFile(database.db, { project, revision: "r1", path: `/${hash}`, hash });
}

const table = (name: string) =>
  rowsOf(database.db, sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)}`);

describe("UploadSessions.open", () => {
  it("open: records the session and its manifest (media type of each extension), asks for each hash once at its largest size, and counts every distinct hash's bytes as added; no pause before the pacer's slice is over", async () => {
    const pacer = slow();
    const opened = await sessions.open(
      { id: "s1", projectSlug: "blue", expiresAt: 500 },
      [
        { path: "/index.html", hash: A, size: 10 },
        { path: "/copy.css", hash: A, size: 12 },
        { path: "/b.png", hash: B, size: 7 },
      ],
      100,
      pacer,
    );
    expect(pacer.pauses).toBe(0);
    expect(opened.missing.sort((x, y) => x.hash.localeCompare(y.hash))).toEqual(
      [
        { hash: A, size: 12 },
        { hash: B, size: 7 },
      ].sort((x, y) => x.hash.localeCompare(y.hash)),
    );
    expect(opened.addedBytes).toBe(19);
    expect(await table("upload_sessions")).toEqual([
      expect.objectContaining({
        id: "s1",
        project_slug: "blue",
        created_at: 100,
        expires_at: 500,
        asset_hashes: 2,
      }),
    ]);
    expect(
      await rowsOf(database.db, sql`SELECT path, hash, size, content_type FROM session_assets ORDER BY path`),
    ).toEqual([
      { path: "/b.png", hash: B, size: 7, content_type: "image/png" },
      { path: "/copy.css", hash: A, size: 12, content_type: "text/css; charset=utf-8" },
      { path: "/index.html", hash: A, size: 10, content_type: "text/html; charset=utf-8" },
    ]);
    expect(await table("session_blobs")).toEqual([]);
  });

  it("open: what the project's kept revisions hold whole is neither asked for nor added; what its live sessions hold is added, not asked for; others' content, expired sessions' and damaged blobs are asked for", async () => {
    await kept("blue", A, 5);
    await kept("green", B, 6);
    await kept("blue", D, 8, 1);
    // C is in a live session of blue, B in an expired one.
    await sessions.open(
      { id: "live", projectSlug: "blue", expiresAt: 1000 },
      [{ path: "/c", hash: C, size: 3 }],
      0,
      slow(),
    );
    await sessions.open(
      { id: "old", projectSlug: "blue", expiresAt: 100 },
      [{ path: "/b", hash: B, size: 6 }],
      0,
      slow(),
    );
    await sessions.record("live", { alreadyHeld: [C], mediaTypes: [] }, 0);
    await sessions.record("old", { alreadyHeld: [B], mediaTypes: [] }, 0);
    await sql`INSERT INTO blobs (hash, size, created_at, damaged) VALUES (${C}, 3, 0, 0)`.execute(
      database.db,
    );

    const entries = [A, B, C, D].map((hash, i) => ({ path: `/${i}`, hash, size: 10 + i }));
    const opened = await sessions.open(
      { id: "s", projectSlug: "blue", expiresAt: 1000 },
      entries,
      100,
      slow(),
    );
    expect(opened.missing.map((m) => m.hash).sort()).toEqual([B, D].sort());
    expect(opened.missing.find((m) => m.hash === D)?.size).toBe(13);
    expect(opened.addedBytes).toBe(11 + 12 + 13);
    const granted = await rowsOf(
      database.db,
      sql<{ hash: string }>`SELECT hash FROM session_blobs WHERE session_id = 's'`,
    );
    expect(granted.map((row) => row.hash).sort()).toEqual([A, C].sort());
    expect(await sessions.missingCount("s")).toBe(2);
  });

  it("open: a project with no kept revision finds what its live sessions hold, and only theirs: a project that holds nothing is asked for everything", async () => {
    await sessions.open(
      { id: "live", projectSlug: "blue", expiresAt: 1000 },
      [{ path: "/c", hash: C, size: 3 }],
      0,
      slow(),
    );
    await sessions.record("live", { alreadyHeld: [C], mediaTypes: [] }, 0);
    await sql`INSERT INTO blobs (hash, size, created_at, damaged) VALUES (${C}, 3, 0, 0)`.execute(
      database.db,
    );
    const entries = [A, C].map((hash, i) => ({ path: `/${i}`, hash, size: 10 + i }));

    const blue = await sessions.open({ id: "s", projectSlug: "blue", expiresAt: 1000 }, entries, 100, slow());
    expect(blue.missing).toEqual([{ hash: A, size: 10 }]);
    expect(blue.addedBytes).toBe(21);
    const green = await sessions.open(
      { id: "g", projectSlug: "green", expiresAt: 1000 },
      entries,
      100,
      slow(),
    );
    expect(green.missing.map((m) => m.hash).sort()).toEqual([A, C].sort());
  });

  it("open: a manifest over ROWS_PER_SLICE entries is written in slices, yielding between them when the pacer says so; a hash whose entries span slices is granted once and never asked for", async () => {
    await kept("blue", A, 5);
    const entries = Array.from({ length: 2500 }, (_, i) => ({
      path: `/${i}`,
      hash: i % 2 === 0 ? A : hashOf(`${i}`),
      size: i,
    }));
    const pacer = new Pacer(0);
    const opened = await sessions.open({ id: "s", projectSlug: "blue", expiresAt: 1000 }, entries, 0, pacer);
    // 2,500 entries in slices of ROWS_PER_SLICE (500), after the sorts into hash order and path
    // order (which yield as their own pacer would: here, in merging the 1,250 entries of A, and
    // the runs of paths).
    const sorting = new Pacer(0);
    await placesByPath(await sortByHash(entries, (entry) => entry.hash, sorting), sorting);
    expect(pacer.pauses).toBe(5 + sorting.pauses);
    expect(opened.missing).toHaveLength(1250);
    expect(opened.missing.some((m) => m.hash === A)).toBe(false);
    expect(opened.addedBytes).toBe(entries.filter((e) => e.hash !== A).reduce((sum, e) => sum + e.size, 0));
    expect((await table("session_assets")).length).toBe(2500);
    expect(await table("session_blobs")).toEqual([{ session_id: "s", hash: A }]);
    expect(await sessions.missingCount("s")).toBe(1250);
  });

  it("open: a slice that fails removes what was written, the session with it, and the error goes on", async () => {
    await sessions.open(
      { id: "other", projectSlug: "blue", expiresAt: 1000 },
      [{ path: "/a", hash: A, size: 1 }],
      0,
      slow(),
    );
    const entries = Array.from({ length: 1500 }, (_, i) => ({
      path: `/${i}`,
      hash: hashOf(`${i}`),
      size: 1,
    }));
    // The last entry in hash order has no size: the second slice's insert fails.
    const last = [...entries].sort((x, y) => x.hash.localeCompare(y.hash)).at(-1)!;
    last.size = null as unknown as number;
    await expect(
      sessions.open({ id: "s", projectSlug: "blue", expiresAt: 1000 }, entries, 0, slow()),
    ).rejects.toThrow(/NOT NULL/);
    expect((await table("upload_sessions")).map((row) => row["id"])).toEqual(["other"]);
    expect((await table("session_assets")).map((row) => row["session_id"])).toEqual(["other"]);
  });
});

describe("UploadSessions queries", () => {
  const open = (id: string, projectSlug: string, expiresAt: number, hashes: string[]) =>
    sessions.open(
      { id, projectSlug, expiresAt },
      hashes.map((hash, i) => ({ path: `/${id}${i}`, hash, size: 4 + i })),
      0,
      slow(),
    );

  it("discard: removes the session, its manifest and its content rows, and nothing of another session", async () => {
    await kept("blue", A, 5);
    await open("s1", "blue", 1000, [A, B]);
    await open("s2", "blue", 1000, [A, C]);
    await sessions.discard("s1");
    expect((await table("upload_sessions")).map((row) => row["id"])).toEqual(["s2"]);
    expect((await table("session_assets")).map((row) => row["session_id"])).toEqual(["s2", "s2"]);
    expect(await table("session_blobs")).toEqual([{ session_id: "s2", hash: A }]);
  });

  it("reserve, pendingBytesOf: the bytes reserved by the address's sessions that end after now, none of another address", async () => {
    for (const [id, expiresAt, address, bytes] of [
      ["s1", 1000, "10.0.0.1", 30],
      ["s2", 2000, "10.0.0.1", 12],
      ["s3", 1000, "10.0.0.2", 99],
      ["s4", 1000, null, 5],
    ] as const) {
      await open(id, "blue", expiresAt, [A]);
      await sessions.reserve(database.db, id, address, bytes);
    }
    expect(await table("upload_sessions")).toContainEqual(
      expect.objectContaining({ id: "s3", client_address: "10.0.0.2", pending_bytes: 99 }),
    );
    expect(await sessions.pendingBytesOf(database.db, "10.0.0.1", 999)).toBe(42);
    expect(await sessions.pendingBytesOf(database.db, "10.0.0.1", 1000)).toBe(12);
    expect(await sessions.pendingBytesOf(database.db, "10.0.0.1", 2000)).toBe(0);
    expect(await sessions.pendingBytesOf(database.db, "10.0.0.9", 0)).toBe(0);
  });

  it("projectBytes: the bytes of the distinct blobs the project's revisions name, each once; 0 for a project without any", async () => {
    await kept("blue", A, 5);
    await kept("blue", B, 7);
    await addRevisionFile(database.db, { project: "blue", revision: "r2", path: "/again", hash: A });
    await kept("green", C, 100);
    expect(await sessions.projectBytes("blue")).toBe(12);
    expect(await sessions.projectBytes("red")).toBe(0);
  });

  it("get: the session's project and expiry, undefined for an unknown id", async () => {
    await open("s1", "blue", 1234, [A]);
    expect(await sessions.get("s1")).toEqual({ id: "s1", projectSlug: "blue", expiresAt: 1234 });
    expect(await sessions.get("nope")).toBeUndefined();
  });

  it("partRun: each hash from the first asked, in hash order, with its smallest path at its largest size, whether the session has it, whether the platform holds it whole; missingOnly leaves out what it has; a full run says the last hash it covers", async () => {
    await kept("green", B, 5);
    await kept("green", C, 5, 1);
    await sessions.open(
      { id: "s1", projectSlug: "blue", expiresAt: 1000 },
      [
        { path: "/z", hash: A, size: 9 },
        { path: "/y", hash: A, size: 3 },
        { path: "/b", hash: B, size: 5 },
        { path: "/c", hash: C, size: 5 },
      ],
      0,
      slow(),
    );
    await sessions.record("s1", { alreadyHeld: [A], mediaTypes: [] }, 0);
    const all = await sessions.partRun("s1", "0".repeat(32), 10, false);
    expect(all.through).toBeUndefined();
    expect([...all.parts.keys()]).toEqual([A, B, C].sort());
    expect(all.parts.get(A)).toEqual({ asset: { path: "/y", size: 9 }, inSession: true, held: false });
    expect(all.parts.get(B)).toEqual({ asset: { path: "/b", size: 5 }, inSession: false, held: true });
    expect(all.parts.get(C)).toEqual({ asset: { path: "/c", size: 5 }, inSession: false, held: false });
    expect(all.parts.has(D)).toBe(false);
    const missing = await sessions.partRun("s1", "0".repeat(32), 10, true);
    expect([...missing.parts.keys()]).toEqual([B, C].sort());
    const [first, second, third] = [A, B, C].sort() as [string, string, string];
    const short = await sessions.partRun("s1", first, 2, false);
    expect([...short.parts.keys()]).toEqual([first, second]);
    expect(short.through).toBe(second);
    const rest = await sessions.partRun("s1", `${first}0`, 2, false);
    expect([...rest.parts.keys()]).toEqual([second, third]);
  });

  it("missingCount: the distinct hashes the session names and has not, counted the same from a session opened before asset_hashes", async () => {
    await sessions.open(
      { id: "s1", projectSlug: "blue", expiresAt: 1000 },
      [
        { path: "/1", hash: A, size: 1 },
        { path: "/2", hash: A, size: 1 },
        { path: "/3", hash: B, size: 1 },
        { path: "/4", hash: C, size: 1 },
      ],
      0,
      slow(),
    );
    await sessions.record("s1", { alreadyHeld: [B], mediaTypes: [] }, 0);
    expect(await sessions.missingCount("s1")).toBe(2);
    await sql`UPDATE upload_sessions SET asset_hashes = NULL`.execute(database.db);
    expect(await sessions.missingCount("s1")).toBe(2);
    await sessions.record("s1", { alreadyHeld: [A, C], mediaTypes: [] }, 0);
    expect(await sessions.missingCount("s1")).toBe(0);
  });
});
