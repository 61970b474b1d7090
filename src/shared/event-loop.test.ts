import { afterEach, describe, expect, it, vi } from "vitest";
import { Pacer, SLICE_MS, yieldToEventLoop } from "./event-loop.js";

describe("Pacer", () => {
  afterEach(() => vi.restoreAllMocks());

  it("Pacer.due: false until the slice has lasted sliceMs, true from then on", () => {
    let now = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const pacer = new Pacer(20);
    now = 1019.9;
    expect(pacer.due()).toBe(false);
    now = 1020;
    expect(pacer.due()).toBe(true);
    now = 1500;
    expect(pacer.due()).toBe(true);
  });

  it("Pacer: slices last SLICE_MS (20 ms) by default", () => {
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const pacer = new Pacer();
    expect(SLICE_MS).toBe(20);
    now = 19;
    expect(pacer.due()).toBe(false);
    now = 20;
    expect(pacer.due()).toBe(true);
  });

  it("Pacer.next: yields to the event loop, counts the pause and starts a new slice", async () => {
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const pacer = new Pacer(10);
    now = 50;
    expect(pacer.due()).toBe(true);
    let ranMeanwhile = false;
    setImmediate(() => (ranMeanwhile = true));
    await pacer.next();
    expect(ranMeanwhile).toBe(true);
    expect(pacer.pauses).toBe(1);
    expect(pacer.due()).toBe(false);
    now = 60;
    expect(pacer.due()).toBe(true);
    await pacer.next();
    expect(pacer.pauses).toBe(2);
  });

  it("yieldToEventLoop: callbacks already queued run before it resolves", async () => {
    let ran = false;
    setImmediate(() => (ran = true));
    await yieldToEventLoop();
    expect(ran).toBe(true);
  });
});
