import { describe, expect, it } from "vitest";
import { MemoryUploadStorage } from "../../test/support/memory-upload-storage.js";
import { PART_RUN, PartLookup } from "./part-lookup.js";

// What a bucket's parts cost the session's storage: runs of hashes, not one read a part.
const hashOf = (i: number) => i.toString(16).padStart(32, "0");

function session(count: number): MemoryUploadStorage {
  const storage = new MemoryUploadStorage();
  const assets = Array.from({ length: count }, (_, i) => ({
    path: `/${i}.txt`,
    hash: hashOf(i * 2),
    size: i,
  }));
  storage.openSession("s1", Number.MAX_SAFE_INTEGER, assets);
  return storage;
}

describe("PartLookup", () => {
  it("state: parts in hash order are answered a run of PART_RUN at a time, each with its path and size", async () => {
    const storage = session(2_500);
    const lookup = new PartLookup(storage, "s1");
    for (let i = 0; i < 2_500; i++) {
      expect(await lookup.state(hashOf(i * 2))).toEqual({
        asset: { path: `/${i}.txt`, size: i },
        inSession: false,
        held: false,
      });
    }
    expect(storage.runs).toEqual([
      { from: hashOf(0), limit: PART_RUN, missingOnly: true },
      { from: hashOf(2_000), limit: PART_RUN, missingOnly: true },
      { from: hashOf(4_000), limit: PART_RUN, missingOnly: true },
    ]);
  });

  it("state: a hash the session does not name has no asset; one inside a run is known without another read", async () => {
    const storage = session(10);
    const lookup = new PartLookup(storage, "s1");
    expect((await lookup.state(hashOf(0))).asset).toBeDefined();
    storage.runs.length = 0;
    // Inside the missing run but not in it: a run of all the session's hashes says it is none of them.
    expect(await lookup.state(hashOf(3))).toEqual({ asset: undefined, inSession: false, held: false });
    expect(storage.runs).toEqual([{ from: hashOf(3), limit: PART_RUN, missingOnly: false }]);
    expect((await lookup.state(hashOf(5))).asset).toBeUndefined();
    expect((await lookup.state(hashOf(1_000))).asset).toBeUndefined();
    expect(storage.runs).toHaveLength(1);
  });

  it("state: parts the session has already (a bucket sent again) are answered by one run of all its hashes", async () => {
    const storage = session(100);
    storage.sessions.get("s1")!.has = new Set(Array.from({ length: 100 }, (_, i) => hashOf(i * 2)));
    storage.blobs.set(hashOf(0), Buffer.from("x"));
    const lookup = new PartLookup(storage, "s1");
    expect(await lookup.state(hashOf(0))).toEqual({
      asset: { path: "/0.txt", size: 0 },
      inSession: true,
      held: true,
    });
    for (let i = 1; i < 100; i++) expect((await lookup.state(hashOf(i * 2))).inSession).toBe(true);
    expect(storage.runs.map((run) => run.missingOnly)).toEqual([true, false]);
  });

  it("state: parts out of hash order get short runs, not PART_RUN rows each", async () => {
    const storage = session(2_000);
    const lookup = new PartLookup(storage, "s1");
    // Each part past the run before it, from the end down.
    for (let i = 1_999; i >= 1_900; i--) expect((await lookup.state(hashOf(i * 2))).asset).toBeDefined();
    const [first, ...rest] = storage.runs;
    expect(first!.limit).toBe(PART_RUN);
    expect(rest).toHaveLength(99);
    expect(Math.max(...rest.map((run) => run.limit))).toBeLessThanOrEqual(16);
  });
});
