import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { pacedBody, watchPace } from "./body-pace.js";

// A full collection on demand, to see what a paced body still holds.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

// 1,000 bytes a second over windows of 400 ms: 400 bytes a window.
const PACE = { minBytesPerSecond: 1000, windowMs: 400 };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setImmediate", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("watchPace", () => {
  it("watchPace: a window spent waiting that brings fewer bytes than the pace asks calls tooSlow once", async () => {
    const tooSlow = vi.fn();
    const watch = watchPace(PACE, tooSlow);
    watch.waiting();
    await vi.advanceTimersByTimeAsync(200);
    watch.arrived(100);
    watch.waiting();
    await vi.advanceTimersByTimeAsync(250);
    expect(tooSlow).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(tooSlow).toHaveBeenCalledTimes(1);
  });

  it("watchPace: time the reader spends holding a chunk does not count against the client", async () => {
    const tooSlow = vi.fn();
    const watch = watchPace(PACE, tooSlow);
    for (let i = 0; i < 10; i++) {
      watch.waiting();
      await vi.advanceTimersByTimeAsync(50);
      watch.arrived(60);
      // The server works on the chunk for a second: the client could send nothing meanwhile.
      await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(tooSlow).not.toHaveBeenCalled();
  });

  it("watchPace: a client that keeps the pace is never cut off; stop ends the watch", async () => {
    const tooSlow = vi.fn();
    const watch = watchPace(PACE, tooSlow);
    for (let i = 0; i < 40; i++) {
      watch.waiting();
      await vi.advanceTimersByTimeAsync(50);
      watch.arrived(60);
    }
    expect(tooSlow).not.toHaveBeenCalled();
    watch.waiting();
    watch.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(tooSlow).not.toHaveBeenCalled();
  });

  it("watchPace: a pace of 0 bytes a second asks nothing", async () => {
    const tooSlow = vi.fn();
    const watch = watchPace({ minBytesPerSecond: 0, windowMs: 400 }, tooSlow);
    watch.waiting();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(tooSlow).not.toHaveBeenCalled();
  });
});

describe("pacedBody", () => {
  it("pacedBody: a body that stops sending fails with the given error and is not ended by the reader", async () => {
    const ended = vi.fn();
    async function* stalled() {
      try {
        yield new Uint8Array(500);
        await new Promise(() => undefined);
      } finally {
        ended();
      }
    }
    const error = new Error("too slow");
    const reading = (async () => {
      for await (const _ of pacedBody(stalled(), PACE, () => error));
    })();
    const outcome = reading.then(
      () => "read whole",
      (reason: unknown) => reason,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await outcome).toBe(error);
    expect(ended).not.toHaveBeenCalled();
  });

  it("pacedBody: a window judged as its chunk arrives (before the watch's timer could run) cuts the body off too", async () => {
    // Real time: the chunk arrives after a window of waiting during which the process was busy,
    // so the timer that would have judged the window had no turn and the chunk's arrival judges
    // it (under a full CI run's load). That judgement was lost, and a trickle was read for ever.
    vi.useRealTimers();
    async function* trickle() {
      for (;;) {
        const until = performance.now() + PACE.windowMs + 50;
        while (performance.now() < until); // the process busy while the client is waited for
        yield new Uint8Array(10);
      }
    }
    const error = new Error("too slow");
    let chunks = 0;
    const outcome = await (async () => {
      for await (const _ of pacedBody(trickle(), PACE, () => error)) if (++chunks > 3) return "read on";
    })().catch((reason: unknown) => reason);
    expect(outcome).toBe(error);
    expect(chunks).toBe(0);
  });

  it("pacedBody: a body that keeps the pace passes through whole", async () => {
    async function* steady() {
      for (let i = 0; i < 5; i++) yield new Uint8Array([i]);
    }
    const chunks: number[] = [];
    for await (const chunk of pacedBody(steady(), PACE, () => new Error("too slow"))) chunks.push(chunk[0]!);
    expect(chunks).toEqual([0, 1, 2, 3, 4]);
  });

  it("pacedBody: holds no chunk it has passed on (a bucket's bytes are not kept until its end)", async () => {
    vi.useRealTimers();
    const passed: WeakRef<Uint8Array>[] = [];
    async function* body() {
      for (let i = 0; i < 20; i++) {
        const chunk = new Uint8Array(64 * 1024);
        passed.push(new WeakRef(chunk));
        yield chunk;
      }
    }
    let read = 0;
    for await (const chunk of pacedBody(body(), PACE, () => new Error("too slow"))) {
      read += chunk.byteLength;
      if (read === 10 * 64 * 1024) {
        // A WeakRef keeps its target alive until the current job ends: let it end first.
        await new Promise((resolve) => setImmediate(resolve));
        collectGarbage();
        // Every chunk but the one in hand (and the generator's last local) is gone.
        expect(passed.slice(0, 8).filter((ref) => ref.deref() !== undefined)).toEqual([]);
      }
    }
    expect(read).toBe(20 * 64 * 1024);
  });
});
