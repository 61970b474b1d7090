import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { DiskPackStorage } from "../content/disk/disk-pack-storage.js";
import { PackWriter } from "../content/pack-writer.js";
import type { PlatformDatabase } from "../state/platform-db.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { forgetDeletedPacks } from "./forget-deleted-packs.js";

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
