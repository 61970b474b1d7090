import { describe, expect, it } from "vitest";
import { BackgroundWork } from "./background-work.js";

/** A log that keeps its lines. */
function keptLog() {
  const lines: { fields: object; message: string }[] = [];
  return { lines, warn: (fields: object, message: string) => void lines.push({ fields, message }) };
}

describe("BackgroundWork", () => {
  it("settled: waits for every task started before it, not for one started meanwhile", async () => {
    const work = new BackgroundWork(keptLog());
    const done: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let later!: () => void;
    const never = new Promise<void>((resolve) => (later = resolve));
    work.start("first", async () => {
      await gate;
      done.push("first");
    });
    let settledWith: string[] | undefined;
    const settled = work.settled().then(() => (settledWith = [...done]));
    work.start("third", () => never);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settledWith).toBeUndefined();
    release();
    await settled;
    expect(settledWith).toEqual(["first"]);
    later();
    await work.settled();
  });

  it("start: a task's failure is logged once and never thrown; settled still resolves", async () => {
    const log = keptLog();
    const work = new BackgroundWork(log);
    const failure = new Error("disk gone");
    work.start("deleting rows", () => Promise.reject(failure));
    await work.settled();
    await work.settled();
    expect(log.lines).toEqual([{ fields: { err: failure }, message: "deleting rows failed" }]);
  });

  it("settled: resolves at once with nothing running", async () => {
    await new BackgroundWork().settled();
  });
});
