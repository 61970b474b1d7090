import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { ContentDirectory } from "../content/content-directory.js";
import { DiskPackStorage } from "../content/disk/disk-pack-storage.js";
import { PackWriter } from "../content/pack-writer.js";
import type { PlatformDatabase } from "../state/platform-db.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { forgetDeletedPacks, forgetDeletedVariants } from "./forget-deleted-content.js";

let dir: string;
let database: PlatformDatabase;
let storage: DiskPackStorage;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "forget-packs-"));
  database = await openPlatformDatabase(dir);
  storage = new DiskPackStorage(dir);
});
afterEach(async () => {
  await storage.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A pack of `text` with its row, read once (so this process keeps it open). */
async function keptPack(text: string): Promise<string> {
  const writer = new PackWriter(join(dir, `${text}.tmp`));
  await writer.append(Buffer.from(text));
  const { id, size } = await storage.commit(writer);
  await database.db.insertInto("packs").values({ id, size, live_bytes: size, created_at: 0 }).execute();
  (await storage.openRange(id, 0, size, size)).close();
  return id;
}

it("forgetDeletedPacks: lets go of the kept packs whose row is gone (deleted by another process), keeps the rest, deletes nothing", async () => {
  const gone = await keptPack("gone");
  const kept = await keptPack("kept");
  expect(await forgetDeletedPacks(database, storage)).toBe(0);
  expect(storage.keptPacks().sort()).toEqual([gone, kept].sort());
  await database.db.deleteFrom("packs").where("id", "=", gone).execute();
  expect(await forgetDeletedPacks(database, storage)).toBe(1);
  expect(storage.keptPacks()).toEqual([kept]);
  // The pack is another process's to delete: only this process's copy went.
  expect((await storage.list()).map((pack) => pack.id).sort()).toEqual([gone, kept].sort());
  expect(await forgetDeletedPacks(database, storage)).toBe(0);
});

it("forgetDeletedVariants: deletes the variants this process made of blobs whose row is gone, keeps the rest", async () => {
  const content = new ContentDirectory(dir);
  const [gone, kept] = ["a".repeat(32), "b".repeat(32)];
  for (const hash of [gone, kept]) {
    await database.db
      .insertInto("blobs")
      .values({ hash, size: 1, created_at: 0, pack: null, pack_offset: null })
      .execute();
    for (const coding of ["br", "gzip"] as const)
      await content.storeVariant(hash, coding, async (path) => writeFileSync(path, coding));
  }
  expect(content.variantsMade().sort()).toEqual([gone, kept]);
  expect(await forgetDeletedVariants(database, content)).toBe(0);
  await database.db.deleteFrom("blobs").where("hash", "=", gone).execute();
  expect(await forgetDeletedVariants(database, content)).toBe(1);
  expect(existsSync(content.variantPath(gone, "br"))).toBe(false);
  expect(existsSync(content.variantPath(gone, "gzip"))).toBe(false);
  expect(existsSync(content.variantPath(kept, "br"))).toBe(true);
  expect(existsSync(content.variantPath(kept, "gzip"))).toBe(true);
  expect(content.variantsMade()).toEqual([kept]);
  expect(await forgetDeletedVariants(database, content)).toBe(0);
});
