import { describe, expect, it } from "vitest";
import { BackgroundWork } from "./background-work.js";

/** A log that keeps its lines. */
function keptLog() {
  const lines: { fields: object; message: string }[] = [];
  return { lines, warn: (fields: object, message: string) => void lines.push({ fields, message }) };
}

describe("BackgroundWork", () => {
  it("settled: waits for every task, those started meanwhile included", async () => {
    const work = new BackgroundWork(keptLog());
    const done: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    work.start("first", async () => {
      await gate;
      work.start("second", async () => {
        await Promise.resolve();
        done.push("second");
      });
      done.push("first");
    });
    const settled = work.settled().then(() => [...done]);
    release();
    expect(await settled).toEqual(["first", "second"]);
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
