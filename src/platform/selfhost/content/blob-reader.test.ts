import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { text } from "node:stream/consumers";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BlobReader, BlobUnavailableError } from "./blob-reader.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { DiskPackStorage } from "./disk/disk-pack-storage.js";
import type { PackRange } from "./pack-storage.js";
import { ContentDirectory } from "./content-directory.js";
import { firstOf, type PlatformDatabase } from "../state/platform-db.js";

const HASH = "a".repeat(32);
const OTHER = "b".repeat(32);

/**
 * Local packs where `beforeOpen` runs (once per open, as a compaction might) before each real
 * openRange; `opens` counts them.
 */
class RacedStorage extends DiskPackStorage {
  beforeOpen: (() => Promise<void>) | undefined;
  opens = 0;
  override async openRange(
    id: string,
    start: number,
    length: number,
    packSize: number | undefined,
  ): Promise<PackRange> {
    this.opens++;
    await this.beforeOpen?.();
    return super.openRange(id, start, length, packSize);
  }
}

let dir: string;
let database: PlatformDatabase;
let packs: ContentDirectory;
let storage: RacedStorage;
let reader: BlobReader;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "blob-reader-"));
  database = await openPlatformDatabase(dir);
  packs = new ContentDirectory(dir);
  storage = new RacedStorage(dir);
  reader = new BlobReader(database, packs, storage);
});
afterEach(async () => {
  await storage.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Stores `content` as one pack and returns its id; recorded with a row of `rowSize` bytes. */
async function pack(content: string, rowSize = content.length): Promise<string> {
  const writer = packs.newWriter();
  await writer.append(Buffer.from(content));
  const { id } = await storage.commit(writer);
  await sql`INSERT INTO packs (id, size, live_bytes, created_at) VALUES (${id}, ${rowSize}, 0, 0)`.execute(
    database.db,
  );
  return id;
}
async function blob(
  hash: string,
  size: number,
  where: { pack?: string | null; offset?: number | null } = {},
) {
  await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset)
    VALUES (${hash}, ${size}, 0, ${where.pack ?? null}, ${where.offset ?? null})`.execute(database.db);
}
const move = (hash: string, to: string, offset: number) =>
  sql`UPDATE blobs SET pack = ${to}, pack_offset = ${offset} WHERE hash = ${hash}`.execute(database.db);
const damagedOf = async (hash: string) =>
  Number(
    (await firstOf(database.db, sql<{ damaged: number }>`SELECT damaged FROM blobs WHERE hash = ${hash}`))!
      .damaged,
  );
function loose(hash: string, content: string): string {
  const path = packs.loosePath(hash);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return path;
}
const descriptorsOn = (path: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;

describe("BlobReader", () => {
  it("read, open: a blob in a pack is its byte range from pack_offset, whole or in parts", async () => {
    const id = await pack("xxhello packyy");
    await blob(HASH, 10, { pack: id, offset: 2 });
    expect((await reader.read(HASH)).toString()).toBe("hello pack");
    const opened = await reader.open(HASH);
    expect(opened.size).toBe(10);
    expect(await text(opened.stream(6, 9))).toBe("pack");
    expect((await opened.readAll()).toString()).toBe("hello pack");
    opened.close();
  });

  it("read: a blob stored before packs is its own file, closed once read; a pack row without offset starts at 0", async () => {
    const path = loose(HASH, "loose bytes");
    await blob(HASH, 11);
    expect((await reader.read(HASH)).toString()).toBe("loose bytes");
    // Its descriptor is closed in the background.
    await expect.poll(() => descriptorsOn(path)).toBe(0);
    const opened = await reader.open(HASH);
    expect(await text(opened.stream(6, 10))).toBe("bytes");
    expect(descriptorsOn(path)).toBe(1);
    opened.close();
    await expect.poll(() => descriptorsOn(path)).toBe(0);
    await blob(OTHER, 3, { pack: await pack("abcdef"), offset: null });
    expect((await reader.read(OTHER)).toString()).toBe("abc");
  });

  it("open: no row, or a row marked damaged, is BlobUnavailableError", async () => {
    await expect(reader.open(HASH)).rejects.toThrow(new BlobUnavailableError(`blob ${HASH} is not held`));
    await blob(HASH, 3);
    await sql`UPDATE blobs SET damaged = 1`.execute(database.db);
    await expect(reader.open(HASH)).rejects.toThrow(
      new BlobUnavailableError(`blob ${HASH} is damaged and awaits a new upload`),
    );
  });

  it("open: a loose file of another size than its row is closed, and its row alone marked damaged", async () => {
    const path = loose(HASH, "short");
    await blob(HASH, 9);
    await blob(OTHER, 1);
    await expect(reader.open(HASH)).rejects.toThrow(
      new BlobUnavailableError(
        `blob ${HASH} is damaged: its file holds 5 bytes, its row says 9; marked so that it is uploaded again`,
      ),
    );
    expect(descriptorsOn(path)).toBe(0);
    expect(await damagedOf(HASH)).toBe(1);
    expect(await damagedOf(OTHER)).toBe(0);
  });

  it("open: a missing loose file or pack marks the row damaged, its file is missing; a pack its row still names is not opened twice", async () => {
    await blob(HASH, 4);
    const missing = (hash: string) =>
      new BlobUnavailableError(
        `blob ${hash} is damaged: its file is missing; marked so that it is uploaded again`,
      );
    await expect(reader.open(HASH)).rejects.toThrow(missing(HASH));
    const id = await pack("gone");
    await blob(OTHER, 4, { pack: id, offset: 0 });
    await storage.delete(id);
    storage.opens = 0;
    await expect(reader.open(OTHER)).rejects.toThrow(missing(OTHER));
    expect(storage.opens).toBe(1);
    expect(await damagedOf(HASH)).toBe(1);
    expect(await damagedOf(OTHER)).toBe(1);
  });

  it("open: a pack of another size than its row is damaged, with the pack's reason", async () => {
    const id = await pack("12345", 7);
    await blob(HASH, 5, { pack: id, offset: 0 });
    await expect(reader.open(HASH)).rejects.toThrow(
      new BlobUnavailableError(
        `blob ${HASH} is damaged: its pack ${id} holds 5 bytes, its row says 7; marked so that it is uploaded again`,
      ),
    );
    expect(await damagedOf(HASH)).toBe(1);
  });

  it("open: a pack no packs row records is damaged, its row saying no size", async () => {
    const writer = packs.newWriter();
    await writer.append(Buffer.from("unrecorded"));
    const { id } = await storage.commit(writer);
    await blob(HASH, 4, { pack: id, offset: 0 });
    await expect(reader.open(HASH)).rejects.toThrow(
      new BlobUnavailableError(
        `blob ${HASH} is damaged: its pack ${id} holds 10 bytes, its row says none; marked so that it is uploaded again`,
      ),
    );
  });

  it("open: another failure is passed on as it is and marks nothing", async () => {
    await blob(HASH, 4, { pack: "not-a-pack", offset: 0 });
    await expect(reader.open(HASH)).rejects.toThrow('not a pack id: "not-a-pack"');
    expect(await damagedOf(HASH)).toBe(0);
  });

  it("open: a blob moved to another pack (its old pack deleted) between lookup and open is read from the new one", async () => {
    const old = await pack("old!");
    const moved = await pack("--new!");
    await blob(HASH, 4, { pack: old, offset: 0 });
    storage.beforeOpen = async () => {
      storage.beforeOpen = undefined;
      await move(HASH, moved, 2);
      await storage.delete(old);
    };
    expect((await reader.read(HASH)).toString()).toBe("new!");
    expect(await damagedOf(HASH)).toBe(0);
  });

  it("open: a blob moved again during the second look is not looked for a third time: damaged", async () => {
    const [first, second, third] = [await pack("one1"), await pack("two2"), await pack("thr3")];
    await blob(HASH, 4, { pack: first, offset: 0 });
    const moves = [
      async () => {
        await move(HASH, second, 0);
        await storage.delete(first);
      },
      async () => {
        await move(HASH, third, 0);
        await storage.delete(second);
      },
    ];
    storage.beforeOpen = async () => moves.shift()?.();
    await expect(reader.open(HASH)).rejects.toThrow(BlobUnavailableError);
    expect(await damagedOf(HASH)).toBe(1);
  });
});
