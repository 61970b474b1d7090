import { expect, it } from "vitest";
import { Semaphore } from "./semaphore.js";

it("Semaphore: at most `permits` run at once, the others in the order they asked, even after a failure", async () => {
  const semaphore = new Semaphore(2);
  const releases: (() => void)[] = [];
  const started: number[] = [];
  let running = 0;
  let peak = 0;
  const runs = [0, 1, 2, 3, 4].map((i) =>
    semaphore
      .run(async () => {
        started.push(i);
        peak = Math.max(peak, ++running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        if (i === 1) throw new Error("failed");
      })
      .catch(() => "failed"),
  );
  for (let released = 0; released < 5; released++) {
    await expect.poll(() => releases.length).toBe(released + 1 + Math.min(1, 4 - released));
    releases[released]!();
  }
  expect(await Promise.all(runs)).toEqual([undefined, "failed", undefined, undefined, undefined]);
  expect(started).toEqual([0, 1, 2, 3, 4]);
  expect(peak).toBe(2);
  expect(() => new Semaphore(0)).toThrow(RangeError);
});
