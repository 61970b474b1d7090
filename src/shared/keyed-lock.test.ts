import { describe, expect, it } from "vitest";
import { KeyedLock } from "./keyed-lock.js";

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("KeyedLock", () => {
  it("KeyedLock.run: work on one key waits for the earlier work to settle, even a failure", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const first = gate();
    const a = lock.run("k", async () => {
      order.push("a start");
      await first.opened;
      order.push("a end");
      throw new Error("a failed");
    });
    const b = lock.run("k", async () => {
      order.push("b");
      return "b";
    });
    await Promise.resolve();
    expect(order).toEqual(["a start"]);
    first.open();
    await expect(a).rejects.toThrow("a failed");
    await expect(b).resolves.toBe("b");
    expect(order).toEqual(["a start", "a end", "b"]);
  });

  it("KeyedLock.run: work on another key runs at once", async () => {
    const lock = new KeyedLock();
    const held = gate();
    const a = lock.run("one", () => held.opened);
    await expect(lock.run("two", async () => "two")).resolves.toBe("two");
    held.open();
    await a;
  });

  it("KeyedLock.run: work queued behind a finished call still waits for the one still running", async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    const first = gate();
    const second = gate();
    const a = lock.run("k", async () => {
      await first.opened;
      order.push("a");
    });
    const b = lock.run("k", async () => {
      order.push("b start");
      await second.opened;
      order.push("b end");
    });
    first.open();
    await a;
    // a has settled while b runs: c must still queue behind b.
    const c = lock.run("k", async () => void order.push("c"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["a", "b start"]);
    second.open();
    await Promise.all([b, c]);
    expect(order).toEqual(["a", "b start", "b end", "c"]);
  });

  it("KeyedLock.run: a key is forgotten once its last work settles, and reusable after", async () => {
    const lock = new KeyedLock();
    const tails = (lock as unknown as { tails: Map<string, unknown> }).tails;
    const held = gate();
    const a = lock.run("k", () => held.opened);
    const b = lock.run("k", async () => "b");
    expect(tails.size).toBe(1);
    held.open();
    await a;
    expect(tails.size).toBe(1);
    await b;
    expect(tails.size).toBe(0);
    await expect(lock.run("k", async () => "again")).resolves.toBe("again");
    expect(tails.size).toBe(0);
  });
});
