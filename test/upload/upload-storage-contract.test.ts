import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { SelfHostedUploadStorage } from "../../src/platform/selfhost/adapters/selfhost-upload-storage.js";
import { ContentDirectory } from "../../src/platform/selfhost/content/content-directory.js";
import { DiskPackStorage } from "../../src/platform/selfhost/content/disk/disk-pack-storage.js";
import { UploadSessions } from "../../src/platform/selfhost/sessions/upload-sessions.js";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import { Pacer } from "../../src/shared/event-loop.js";
import type { UploadStorage } from "../../src/upload/upload-storage.js";
import { MemoryUploadStorage } from "../support/memory-upload-storage.js";

// What every UploadStorage does, run on the in-memory one the upload service's unit tests use and
// on the self-hosted one the server hands it: the unit tests are only as good as their likeness.

type Asset = { path: string; hash: string; size: number };

interface Subject {
  storage: UploadStorage;
  /** Opens session `id` of one project, its manifest naming `assets`. */
  open(id: string, expiresAt: number, assets: Asset[]): Promise<void>;
  close(): Promise<void>;
}

const NOW = 1_800_000_000_000;

const SUBJECTS: Record<string, () => Promise<Subject>> = {
  "in memory": async () => {
    const storage = new MemoryUploadStorage();
    return {
      storage,
      open: async (id, expiresAt, assets) => storage.openSession(id, expiresAt, assets),
      close: async () => undefined,
    };
  },
  "self-hosted (SQLite, local folder)": async () => {
    const dir = mkdtempSync(join(tmpdir(), "upload-storage-"));
    const db = await openPlatformDatabase(dir);
    const sessions = new UploadSessions(db);
    const packStorage = new DiskPackStorage(dir);
    const storage = new SelfHostedUploadStorage({
      sessions,
      content: new ContentDirectory(dir),
      packStorage,
    });
    return {
      storage,
      open: async (id, expiresAt, assets) =>
        void (await sessions.open({ id, projectSlug: "shop", expiresAt }, assets, NOW, new Pacer(60_000))),
      close: async () => {
        await packStorage.close();
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const PAGE = Buffer.from("<p>page</p>");
const STYLE = Buffer.from("p { color: teal }");
let assets: Asset[];
beforeAll(async () => {
  assets = [
    { path: "/index.html", hash: await hashAsset(PAGE, "/index.html"), size: PAGE.length },
    { path: "/style.css", hash: await hashAsset(STYLE, "/style.css"), size: STYLE.length },
  ];
});

for (const [name, start] of Object.entries(SUBJECTS)) {
  describe(`UploadStorage ${name}`, () => {
    let subject: Subject | undefined;
    afterEach(async () => {
      await subject?.close();
      subject = undefined;
    });

    async function opened() {
      subject = await start();
      await subject.open("s1", NOW + 60_000, assets);
      return subject.storage;
    }

    /** What a run of one hash from `hash` says of it. */
    const stateOf = async (storage: UploadStorage, hash: string) =>
      (await storage.partRun("s1", hash, 1, false)).parts.get(hash);

    it("session, partRun: an open session and its expiry; a hash its manifest names, with its path and size", async () => {
      const storage = await opened();
      expect(await storage.session("s1")).toMatchObject({ id: "s1", expiresAt: NOW + 60_000 });
      expect(await storage.session("s2")).toBeUndefined();
      expect(await stateOf(storage, assets[0]!.hash)).toEqual({
        asset: { path: "/index.html", size: PAGE.length },
        inSession: false,
        held: false,
      });
      expect(await stateOf(storage, "f".repeat(32))).toBeUndefined();
      expect(await storage.missingCount("s1")).toBe(2);
    });

    it("partRun: the session's hashes from the one asked, in hash order, at most as many as asked, the last one covered when it stops short; missingOnly leaves out what the session has", async () => {
      const storage = await opened();
      const [first, second] = assets.map((asset) => asset.hash).sort() as [string, string];
      const both = await storage.partRun("s1", "0".repeat(32), 5, false);
      expect([...both.parts.keys()]).toEqual([first, second]);
      expect(both.through).toBeUndefined();
      const one = await storage.partRun("s1", "0".repeat(32), 1, false);
      expect([...one.parts.keys()]).toEqual([first]);
      expect(one.through).toBe(first);
      expect([...(await storage.partRun("s1", `${first}0`, 5, false)).parts.keys()]).toEqual([second]);
      await storage.record("s1", { alreadyHeld: [first], mediaTypes: [] }, NOW);
      const missing = await storage.partRun("s1", "0".repeat(32), 5, true);
      expect([...missing.parts.keys()]).toEqual([second]);
      expect(missing.through).toBeUndefined();
    });

    it("startPack, commitPack, record: the blobs recorded are held and the session's; what it misses drops", async () => {
      const storage = await opened();
      const pack = storage.startPack();
      await pack.append(PAGE);
      const committed = await storage.commitPack(pack);
      expect(committed.size).toBe(PAGE.length);
      const blobs = [{ hash: assets[0]!.hash, size: PAGE.length, offset: 0 }];
      await storage.record("s1", { pack: { ...committed, blobs }, mediaTypes: [] }, NOW);
      expect(await stateOf(storage, assets[0]!.hash)).toMatchObject({ inSession: true, held: true });
      expect(await storage.missingCount("s1")).toBe(1);
    });

    it("record: content credited as held already counts as the session's without a pack", async () => {
      const storage = await opened();
      await storage.record("s1", { alreadyHeld: [assets[1]!.hash], mediaTypes: [] }, NOW);
      expect((await stateOf(storage, assets[1]!.hash))?.inSession).toBe(true);
      expect(await storage.missingCount("s1")).toBe(1);
    });
  });
}
