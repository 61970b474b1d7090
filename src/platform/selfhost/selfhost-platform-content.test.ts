import { readdirSync, readlinkSync } from "node:fs";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pacer } from "../../shared/event-loop.js";
import { hashOf, testPlatform, type TestPlatform, uploadInto } from "../../../test/support/test-platform.js";

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});
afterEach(() => t.remove());

/** Session `id` of `project`, ending at `expiresAt`, naming these contents, all uploaded in one pack. */
async function uploaded(id: string, expiresAt: number, contents: string[]): Promise<string> {
  const entries = contents.map((text, i) => ({ path: `/${i}`, hash: hashOf(text), size: text.length }));
  await t.sessions.open({ id, projectSlug: "blue", expiresAt }, entries, 0, new Pacer(60_000));
  return uploadInto(t, id, contents);
}
/** How many descriptors of this process are open on a file whose name holds `name`. */
const filesOpen = (name: string) =>
  readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes(name);
    } catch {
      return false;
    }
  }).length;
const packsStored = async () => (await t.files.storage.list()).map((pack) => pack.id).sort();

describe("SelfHostedPlatform content", () => {
  it("sweep: adds up the steps of a collection (expired sessions, blobs, bytes), then compacts what it left mostly dead; a live session keeps its content", async () => {
    const partly = await uploaded("old1", 100, ["aaaa", "bbb"]);
    await uploaded("old2", 100, ["cc"]);
    // The live session names bbb too: its row stays in old1's pack, which is left 3 bytes of 7 live.
    const live = await uploaded("live", 5000, ["dddddd", "bbb"]);
    expect(await t.platform.sweep(new Date(200))).toEqual({
      sessionsExpired: 2,
      blobsDeleted: 2,
      bytesFreed: 6,
    });
    const after = await packsStored();
    expect(after).toHaveLength(2);
    expect(after).toContain(live);
    expect(after).not.toContain(partly);
    expect(await t.platform.contentStats()).toEqual({ packs: 2, bytes: 12, liveBytes: 9 });
    expect(await t.platform.sweep(new Date(200))).toEqual({
      sessionsExpired: 0,
      blobsDeleted: 0,
      bytesFreed: 0,
    });
  });

  it("compact: copies the live blobs of every mostly dead pack into new packs, one step each, and adds up what they did", async () => {
    const first = await uploaded("s1", 5000, ["a", "bbbbbbbbbb"]);
    const second = await uploaded("s2", 5000, ["c", "dddddddddddd"]);
    // The long blobs' rows go (as a collection would): each pack is left with one live byte.
    await sql`DELETE FROM session_assets WHERE size > 1`.execute(t.database.db);
    await sql`DELETE FROM session_hashes WHERE size > 1`.execute(t.database.db);
    await sql`DELETE FROM session_blobs WHERE hash IN (${hashOf("bbbbbbbbbb")}, ${hashOf("dddddddddddd")})`.execute(
      t.database.db,
    );
    await t.platform.collectGarbage(0);
    expect(await t.platform.contentStats()).toEqual({ packs: 2, bytes: 24, liveBytes: 2 });
    expect(await t.platform.compact()).toEqual({ packsRemoved: 2, bytesFreed: 22, blobsMoved: 2 });
    const after = await packsStored();
    expect(after).toHaveLength(2);
    expect(after).not.toContain(first);
    expect(after).not.toContain(second);
    expect(await t.platform.contentStats()).toEqual({ packs: 2, bytes: 2, liveBytes: 2 });
    expect(await t.platform.compact()).toEqual({ packsRemoved: 0, bytesFreed: 0, blobsMoved: 0 });
  });

  it("collectGarbage: by the platform's clock unless told a time", async () => {
    await uploaded("s1", 2_000_000, ["aaaa"]);
    expect(await t.platform.collectGarbage()).toMatchObject({ sessionsExpired: 0 });
    expect(await t.platform.collectGarbage(2_000_001)).toEqual({
      sessionsExpired: 1,
      blobsDeleted: 1,
      bytesFreed: 4,
    });
    await uploaded("s2", 2_000_000, ["bbbb"]);
    t.clock.ms = 2_000_000;
    expect(await t.platform.collectGarbage()).toEqual({ sessionsExpired: 1, blobsDeleted: 1, bytesFreed: 4 });
  });

  it("contentStats: none held is zeros", async () => {
    expect(await t.platform.contentStats()).toEqual({ packs: 0, bytes: 0, liveBytes: 0 });
  });

  it("check, dependencyChecks, close: the database answers; packs on local disk add no check; closed, the database is and the open pack files are", async () => {
    const pack = await uploaded("s1", 5000, ["aaaa"]);
    expect((await t.reader.read(hashOf("aaaa"))).toString()).toBe("aaaa");
    expect(filesOpen(pack)).toBe(1);
    await expect(t.platform.check()).resolves.toBeUndefined();
    expect(t.platform.dependencyChecks()).toEqual({});
    await t.platform.close();
    expect(t.database.open).toBe(false);
    await expect(t.platform.check()).rejects.toThrow();
    await expect.poll(() => filesOpen(pack)).toBe(0);
  });
});
