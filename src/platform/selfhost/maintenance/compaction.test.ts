import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { BlobReader } from "../content/blob-reader.js";
import { compactStep } from "./compaction.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { collectGarbage, type ContentFiles } from "./garbage-collector.js";
import { DiskPackStorage } from "../content/disk/disk-pack-storage.js";
import { ContentDirectory } from "../content/content-directory.js";
import { firstOf, type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { UploadSessions } from "../sessions/upload-sessions.js";
import { hashOf } from "../../../../test/support/test-platform.js";

let dir: string;
let database: PlatformDatabase;
let files: ContentFiles;
let reader: BlobReader;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "compaction-"));
  database = await openPlatformDatabase(dir);
  files = { packs: new ContentDirectory(dir), storage: new DiskPackStorage(dir) };
  reader = new BlobReader(database, files.packs, files.storage);
});
afterEach(async () => {
  await files.storage.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

const bytesOf = (hash: string, size: number) => Buffer.alloc(size, hash);
const packsStored = async () => (await files.storage.list()).map((pack) => pack.id).sort();
const packRows = () =>
  rowsOf(
    database.db,
    sql<{ id: string; size: number; live_bytes: number }>`SELECT id, size, live_bytes FROM packs`,
  );

/** A session naming `count` blobs of `size` bytes, uploaded in one pack; returns the pack and hashes. */
async function uploaded(count: number, size: number): Promise<{ pack: string; hashes: string[] }> {
  const sessions = new UploadSessions(database);
  const entries = Array.from({ length: count }, (_, i) => ({ path: `/${i}`, hash: hashOf(`${i}`), size }));
  await sessions.open(
    { id: "s", projectSlug: "blue-fox-k3", expiresAt: 1000 },
    entries,
    0,
    new Pacer(60_000),
  );
  const writer = files.packs.newWriter();
  const blobs = [];
  for (const entry of entries) {
    blobs.push({ hash: entry.hash, size, offset: writer.length });
    await writer.append(bytesOf(entry.hash, size));
  }
  const pack = await files.storage.commit(writer);
  await sessions.record("s", { pack: { ...pack, blobs }, mediaTypes: [] }, 0);
  return { pack: pack.id, hashes: entries.map((entry) => entry.hash) };
}

/** A blob stored before packs: its row without a pack, its bytes in a file of its own (if `write`). */
async function looseBlob(name: string, size: number, write = true): Promise<string> {
  const hash = hashOf(name);
  await sql`INSERT INTO blobs (hash, size, created_at) VALUES (${hash}, ${size}, 0)`.execute(database.db);
  if (write) {
    mkdirSync(dirname(files.packs.loosePath(hash)), { recursive: true });
    writeFileSync(files.packs.loosePath(hash), bytesOf(hash, size));
  }
  return hash;
}

describe("compactStep", () => {
  it("compactStep: a pack less than half alive is copied into a new one, live blobs only, and removed; the counts say so", async () => {
    const { pack, hashes } = await uploaded(4, 10);
    // Only the first blob stays named: 10 live bytes of 40.
    await sql`DELETE FROM session_assets WHERE path <> '/0'`.execute(database.db);
    await sql`DELETE FROM session_hashes WHERE path <> '/0'`.execute(database.db);
    await sql`DELETE FROM session_blobs WHERE hash <> ${hashes[0]}`.execute(database.db);
    await collectGarbage(database, files, 0);
    expect(await compactStep(database, files, reader, 5)).toEqual({
      packsRemoved: 1,
      bytesFreed: 30,
      blobsMoved: 1,
    });
    const [moved] = await packRows();
    expect(moved).toMatchObject({ size: 10, live_bytes: 10 });
    expect(moved!.id).not.toBe(pack);
    expect(await packsStored()).toEqual([moved!.id]);
    expect((await reader.read(hashes[0]!)).equals(bytesOf(hashes[0]!, 10))).toBe(true);
    expect(await compactStep(database, files, reader, 5)).toBeUndefined();
  });

  it("compactStep: blobs stored before packs move into one pack, their files removed; the counts say so", async () => {
    const first = await looseBlob("one", 10);
    const second = await looseBlob("two", 20);
    expect(await compactStep(database, files, reader, 5)).toEqual({
      packsRemoved: 0,
      bytesFreed: 0,
      blobsMoved: 2,
    });
    expect(existsSync(files.packs.loosePath(first))).toBe(false);
    expect(existsSync(files.packs.loosePath(second))).toBe(false);
    expect(await packRows()).toMatchObject([{ size: 30, live_bytes: 30 }]);
    expect((await reader.read(first)).equals(bytesOf(first, 10))).toBe(true);
    expect((await reader.read(second)).equals(bytesOf(second, 20))).toBe(true);
    expect(await compactStep(database, files, reader, 5)).toBeUndefined();
  });

  it("compactStep: a blob deleted while its bytes are copied keeps no row in the new pack and is not counted", async () => {
    const kept = await looseBlob("kept", 10);
    const gone = await looseBlob("gone", 20);
    // A reader that lets the other blob's row be deleted before it reads the second blob.
    let reads = 0;
    const racing = new (class extends BlobReader {
      override async read(hash: string): Promise<Buffer> {
        if (++reads === 2)
          await sql`DELETE FROM blobs WHERE hash = ${hash === kept ? gone : kept}`.execute(database.db);
        return super.read(hash);
      }
    })(database, files.packs, files.storage);
    const result = await compactStep(database, files, racing, 5);
    expect(result).toEqual({ packsRemoved: 0, bytesFreed: 0, blobsMoved: 1 });
    const [pack] = await packRows();
    const left = await rowsOf(database.db, sql<{ hash: string }>`SELECT hash FROM blobs`);
    expect(left).toHaveLength(1);
    expect(pack).toMatchObject({ live_bytes: left[0]!.hash === kept ? 10 : 20 });
  });

  it("compactStep: a pack that cannot be committed is discarded and fails the step; the blobs stay where they were", async () => {
    const hash = await looseBlob("one", 10);
    // The packs folder gone from under the storage: the new pack's rename into it fails.
    rmSync(join(dir, "packs"), { recursive: true });
    await expect(compactStep(database, files, reader, 5)).rejects.toThrow(/ENOENT/);
    expect(readdirSync(join(dir, "tmp"))).toEqual([]);
    expect(existsSync(files.packs.loosePath(hash))).toBe(true);
    expect(await packRows()).toEqual([]);
  });

  const MiB = 1024 * 1024;

  it("compactStep: blobs stored before packs that make 64 MiB exactly move in one step", async () => {
    await looseBlob("half-1", 32 * MiB);
    await looseBlob("half-2", 32 * MiB);
    expect(await compactStep(database, files, reader, 5)).toEqual({
      packsRemoved: 0,
      bytesFreed: 0,
      blobsMoved: 2,
    });
    expect(await packRows()).toMatchObject([{ size: 64 * MiB }]);
  });

  it("compactStep: a blob stored before packs larger than 64 MiB moves alone; the next waits for the next step", async () => {
    const big = await looseBlob("big", 64 * MiB + 1);
    const small = await looseBlob("small", 1);
    const first = await compactStep(database, files, reader, 5);
    expect(first).toEqual({ packsRemoved: 0, bytesFreed: 0, blobsMoved: 1 });
    // Whichever the database listed first went alone; the other is still in its own file.
    const left = [big, small].filter((hash) => existsSync(files.packs.loosePath(hash)));
    expect(left).toHaveLength(1);
    expect(await compactStep(database, files, reader, 5)).toEqual(first);
    expect((await reader.read(big)).length).toBe(64 * MiB + 1);
  });

  it("compactStep: a blob whose file is gone is marked damaged and not moved; no empty pack is left behind", async () => {
    const missing = await looseBlob("missing", 10, false);
    expect(await compactStep(database, files, reader, 5)).toEqual({
      packsRemoved: 0,
      bytesFreed: 0,
      blobsMoved: 0,
    });
    expect(await packRows()).toEqual([]);
    expect(await packsStored()).toEqual([]);
    const row = await firstOf(
      database.db,
      sql<{ damaged: number }>`SELECT damaged FROM blobs WHERE hash = ${missing}`,
    );
    expect(Number(row?.damaged)).toBe(1);
    expect(await compactStep(database, files, reader, 5)).toBeUndefined();
  });
});
