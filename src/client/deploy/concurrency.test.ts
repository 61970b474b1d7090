import { describe, expect, it } from "vitest";
import { forEachLimit } from "./concurrency.js";

/** A task that records how many run at once and waits a turn of the event loop. */
function tracked() {
  const state = { active: 0, most: 0, seen: [] as Array<[string, number]> };
  const task = async (item: string, index: number) => {
    state.active++;
    state.most = Math.max(state.most, state.active);
    state.seen.push([item, index]);
    await new Promise((resolve) => setImmediate(resolve));
    state.active--;
  };
  return { state, task };
}

describe("forEachLimit", () => {
  it("forEachLimit: every item once, in order of start, with at most `limit` running", async () => {
    const { state, task } = tracked();
    await forEachLimit(["a", "b", "c", "d", "e"], 2, task);
    expect(state.seen).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
      ["d", 3],
      ["e", 4],
    ]);
    expect(state.most).toBe(2);
  });

  it("forEachLimit: a limit above the item count runs them all at once; a limit of 0 still runs one", async () => {
    const wide = tracked();
    await forEachLimit(["a", "b", "c"], 10, wide.task);
    expect(wide.state.most).toBe(3);
    const narrow = tracked();
    await forEachLimit(["a", "b", "c"], 0, narrow.task);
    expect([narrow.state.most, narrow.state.seen.length]).toEqual([1, 3]);
    const none = tracked();
    await forEachLimit([], 3, none.task);
    expect(none.state.seen).toEqual([]);
  });

  it("forEachLimit: the first failure is thrown and no new item starts after it", async () => {
    const started: string[] = [];
    const failure = new Error("b failed");
    const run = forEachLimit(["a", "b", "c", "d"], 2, async (item) => {
      started.push(item);
      await new Promise((resolve) => setImmediate(resolve));
      if (item === "b") throw failure;
    });
    await expect(run).rejects.toBe(failure);
    // a and b ran together; a's runner took c before b failed, and nothing took d.
    expect(started).toEqual(["a", "b", "c"]);
  });
});
