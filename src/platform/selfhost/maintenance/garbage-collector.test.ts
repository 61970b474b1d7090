import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { collectGarbage, collectGarbageStep, type ContentFiles, reclaimBlobs } from "./garbage-collector.js";
import { removeOrphanFiles } from "./orphan-files.js";
import { DiskPackStorage } from "../content/disk/disk-pack-storage.js";
import { ContentDirectory } from "../content/content-directory.js";
import { firstOf, type PlatformDatabase } from "../state/platform-db.js";
import { UploadSessions } from "../sessions/upload-sessions.js";
import { hashOf } from "../../../../test/support/test-platform.js";

let dir: string;
let database: PlatformDatabase;
let files: ContentFiles;
let sessions: UploadSessions;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "garbage-collector-"));
  database = await openPlatformDatabase(dir);
  files = { packs: new ContentDirectory(dir), storage: new DiskPackStorage(dir) };
  sessions = new UploadSessions(database);
});
afterEach(async () => {
  await files.storage.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Opens session `id` naming `count` blobs of `size` bytes each, and uploads them all in one pack. */
async function uploaded(id: string, count: number, size: number, expiresAt: number): Promise<string> {
  const entries = Array.from({ length: count }, (_, i) => ({
    path: `/${i}`,
    hash: hashOf(`${id} ${i}`),
    size,
  }));
  await sessions.open({ id, projectSlug: "blue-fox-k3", expiresAt }, entries, 0, new Pacer(60_000));
  const writer = files.packs.newWriter();
  const blobs = [];
  for (const entry of entries) {
    blobs.push({ hash: entry.hash, size, offset: writer.length });
    await writer.append(Buffer.alloc(size, 1));
  }
  const pack = await files.storage.commit(writer);
  await sessions.record(id, { pack: { ...pack, blobs }, mediaTypes: [] }, 0);
  return pack.id;
}

const count = async (table: string) =>
  Number((await firstOf(database.db, sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`))!.n);
const packsStored = async () => (await files.storage.list()).map((pack) => pack.id).sort();

describe("collectGarbage", () => {
  it("collectGarbageStep: an expired session's manifest rows go `batch` at a time, then the session, then its blobs, then its pack; done once a step finds nothing", async () => {
    const expiredPack = await uploaded("expired", 3, 10, 100);
    const livePack = await uploaded("live", 2, 7, 1000);
    const steps = [];
    for (let step = 0; step < 10; step++) {
      const result = await collectGarbageStep(database, files, 200, 2);
      steps.push(result);
      if (result.done) break;
    }
    const nothing = { sessionsExpired: 0, blobsDeleted: 0, bytesFreed: 0 };
    expect(steps).toEqual([
      // 2 of the 3 manifest rows and 2 of the 3 records of content held, then the last of each.
      { ...nothing, done: false },
      { ...nothing, done: false },
      { ...nothing, sessionsExpired: 1, done: false },
      { ...nothing, blobsDeleted: 2, bytesFreed: 20, done: false },
      { ...nothing, blobsDeleted: 1, bytesFreed: 10, done: false },
      { ...nothing, done: true },
    ]);
    expect(await packsStored()).toEqual([livePack]);
    expect(expiredPack).not.toBe(livePack);
    expect(await count("upload_sessions")).toBe(1);
    expect(await count("session_assets")).toBe(2);
    expect(await count("blobs")).toBe(2);
    expect(await count("packs")).toBe(1);
  });

  it("collectGarbage: at once, the expired sessions, their blobs and packs; the live session's content stays", async () => {
    await uploaded("expired", 3, 10, 100);
    const livePack = await uploaded("live", 2, 7, 1000);
    expect(await collectGarbage(database, files, 200)).toEqual({
      sessionsExpired: 1,
      blobsDeleted: 3,
      bytesFreed: 30,
    });
    expect(await packsStored()).toEqual([livePack]);
    expect(await count("blobs")).toBe(2);
    expect(await collectGarbage(database, files, 200)).toEqual({
      sessionsExpired: 0,
      blobsDeleted: 0,
      bytesFreed: 0,
    });
  });

  it("collectGarbage: with a batch, one bounded round of each per call: the session goes once its rows are gone", async () => {
    await uploaded("expired", 3, 10, 100);
    const rounds = [];
    for (let round = 0; round < 3; round++) rounds.push(await collectGarbage(database, files, 200, 2));
    expect(rounds).toEqual([
      // Two manifest rows go, and the two blobs they named with them; the session still has one.
      { sessionsExpired: 0, blobsDeleted: 2, bytesFreed: 20 },
      { sessionsExpired: 0, blobsDeleted: 1, bytesFreed: 10 },
      { sessionsExpired: 1, blobsDeleted: 0, bytesFreed: 0 },
    ]);
    expect(await count("upload_sessions")).toBe(0);
    expect(await packsStored()).toEqual([]);
  });

  it("reclaimBlobs: of the hashes given, those nothing names go, with their pack once empty; the others stay", async () => {
    const pack = await uploaded("gone", 2, 10, 1000);
    await uploaded("kept", 1, 7, 1000);
    await sessions.discard("gone");
    const gone = [hashOf("gone 0"), hashOf("gone 1")];
    expect(await reclaimBlobs(database, files, [...gone, hashOf("kept 0")])).toEqual({
      sessionsExpired: 0,
      blobsDeleted: 2,
      bytesFreed: 20,
    });
    expect(await packsStored()).not.toContain(pack);
    expect(await count("blobs")).toBe(1);
  });

  it("collectGarbage: a blob stored before packs goes with its file, and every blob's compressed variants with it", async () => {
    const loose = hashOf("loose");
    const packed = hashOf("expired 0");
    await uploaded("expired", 1, 10, 100);
    await sql`INSERT INTO blobs (hash, size, created_at) VALUES (${loose}, 5, 0)`.execute(database.db);
    const paths = [
      files.packs.loosePath(loose),
      files.packs.variantPath(loose, "br"),
      files.packs.variantPath(packed, "gzip"),
    ];
    for (const path of paths) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, "bytes");
    }
    expect(await collectGarbage(database, files, 200)).toEqual({
      sessionsExpired: 1,
      blobsDeleted: 2,
      bytesFreed: 15,
    });
    expect(paths.filter((path) => existsSync(path))).toEqual([]);
  });
});

describe("removeOrphanFiles", () => {
  it("removeOrphanFiles: packs and blob files no row names go, counted; a pack written at or after the bound stays", async () => {
    const named = await uploaded("named", 1, 10, 1000);
    const writer = files.packs.newWriter();
    await writer.append(Buffer.from("orphan"));
    const orphan = await files.storage.commit(writer);
    const writtenAt = (await files.storage.list()).find((pack) => pack.id === orphan.id)!.writtenAt;
    const loose = files.packs.loosePath(hashOf("orphan loose"));
    mkdirSync(dirname(loose), { recursive: true });
    writeFileSync(loose, "bytes");

    // Written at the bound: a writer may be about to record it.
    expect(await removeOrphanFiles(database, files, writtenAt)).toBe(1);
    expect(existsSync(loose)).toBe(false);
    expect(await packsStored()).toEqual([named, orphan.id].sort());
    expect(await removeOrphanFiles(database, files, writtenAt + 1)).toBe(1);
    expect(await packsStored()).toEqual([named]);
    expect(await removeOrphanFiles(database, files)).toBe(0);
  });
});
