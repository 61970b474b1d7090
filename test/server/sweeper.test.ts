import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Locks } from "../../src/core/ports/index.js";
import { startSweeper } from "../../src/server/sweeper.js";
import { Metrics } from "../../src/shared/observability/metrics.js";
import { createTestProject } from "../support/deploy-flow.js";
import { capturingLogger, LEVEL } from "../support/log-lines.js";
import { sumOf } from "../support/prometheus-text.js";
import { startTestServer } from "../support/server.js";

const INTERVAL_SECONDS = 60;
const silent = pino({ level: "silent" });
const cleanups: (() => void)[] = [];

/** The real locks, counting the sweeps begun (the sweeper asks for the sweep's lock first). */
function counting(inner: Locks): { locks: Locks; begun: () => number } {
  let begun = 0;
  const locks: Locks = {
    run: (key, work) => inner.run(key, work),
    tryRun: (key, work) => {
      begun++;
      return inner.run(key, work);
    },
  };
  return { locks, begun: () => begun };
}

/** The sweeps `metrics` counted with `result`. */
async function sweeps(metrics: Metrics, result: "ok" | "failed"): Promise<number> {
  return sumOf((await metrics.render()).body, "gc_runs_total", { result });
}

// Only the interval timer is faked: the servers' own I/O and timeouts keep real time.
describe("the sweeper", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    // The server's own sweeper effectively never fires: the one under test is started here.
    server = await startTestServer({ sweepIntervalSeconds: 86_400 * 365 });
  });
  afterAll(() => server.stop());
  afterEach(() => {
    vi.useRealTimers();
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it("startSweeper: sweeps once per interval, purging what expired, until stopped", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const metrics = new Metrics("api");
    const project = await createTestProject(server.urls.api, "swept");
    const { projectTtlSeconds, projectPurgeGraceSeconds } = server.services.config;
    server.clock.advance(projectTtlSeconds + projectPurgeGraceSeconds + 1);
    const { locks, begun } = counting(server.services.locks);
    const { logger, lines } = capturingLogger();
    const sweeper = startSweeper({ ...server.services, locks }, INTERVAL_SECONDS, logger, metrics);
    try {
      vi.advanceTimersByTime(INTERVAL_SECONDS * 1000 - 1);
      expect(begun()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(begun()).toBe(1);
      await expect.poll(() => sweeps(metrics, "ok")).toBe(1);
      expect(await server.services.store.getProject(project.slug)).toBeUndefined();
      // What the sweep did is logged at debug, the whole result as fields.
      expect(lines).toEqual([
        expect.objectContaining({ level: LEVEL.debug, msg: "sweep", projectsPurged: 1 }),
      ]);
      vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
      await expect.poll(() => sweeps(metrics, "ok")).toBe(2);
    } finally {
      sweeper.stop();
    }
    vi.advanceTimersByTime(10 * INTERVAL_SECONDS * 1000);
    expect(begun()).toBe(2);
    expect(await sweeps(metrics, "ok")).toBe(2);
    expect(await sweeps(metrics, "failed")).toBe(0);
  });

  it("startSweeper: a sweep still running when the interval comes round is not joined by another", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const metrics = new Metrics("api");
    // The real locks, with the sweep's lock held at a gate until the test lets it go.
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let started = 0;
    const locks: Locks = {
      run: (key, work) => server.services.locks.run(key, work),
      tryRun: async (key, work) => {
        started++;
        await gate;
        return server.services.locks.run(key, work);
      },
    };
    const sweeper = startSweeper({ ...server.services, locks }, INTERVAL_SECONDS, silent, metrics);
    try {
      vi.advanceTimersByTime(3 * INTERVAL_SECONDS * 1000);
      expect(started).toBe(1);
      letGo();
      await expect.poll(() => sweeps(metrics, "ok")).toBe(1);
      vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
      expect(started).toBe(2);
      await expect.poll(() => sweeps(metrics, "ok")).toBe(2);
    } finally {
      sweeper.stop();
    }
  });

  it("startSweeper: a sweep another process holds the lock of is skipped, logged at debug and not counted", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const metrics = new Metrics("api");
    let asked = 0;
    // Another process holds the sweep's lock: tryRun runs nothing and answers undefined.
    const locks: Locks = {
      run: (key, work) => server.services.locks.run(key, work),
      tryRun: async () => {
        asked++;
        return undefined;
      },
    };
    const { logger, lines } = capturingLogger();
    const sweeper = startSweeper({ ...server.services, locks }, INTERVAL_SECONDS, logger, metrics);
    try {
      vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
      expect(asked).toBe(1);
      await expect.poll(() => lines.length).toBe(1);
      expect(lines).toEqual([
        expect.objectContaining({ level: LEVEL.debug, msg: "sweep skipped: another process is sweeping" }),
      ]);
      expect(await sweeps(metrics, "ok")).toBe(0);
      expect(await sweeps(metrics, "failed")).toBe(0);
    } finally {
      sweeper.stop();
    }
  });

  it("startSweeper: without metrics it sweeps and logs all the same, a failure too", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    // Counting the metrics without metrics would throw inside the sweep's handlers: an unhandled rejection.
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    cleanups.push(() => void process.off("unhandledRejection", onRejection));
    const { logger, lines } = capturingLogger();
    const sweeper = startSweeper(server.services, INTERVAL_SECONDS, logger);
    try {
      vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
      await expect.poll(() => lines.map((line) => line.msg)).toEqual(["sweep"]);
    } finally {
      sweeper.stop();
    }
    const broken = await startTestServer({ sweepIntervalSeconds: 86_400 * 365 });
    try {
      await broken.services.store.close();
      const failing = startSweeper(broken.services, INTERVAL_SECONDS, logger);
      try {
        vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
        await expect.poll(() => lines.map((line) => line.msg)).toEqual(["sweep", "sweep failed"]);
      } finally {
        failing.stop();
      }
    } finally {
      await broken.stop().catch(() => undefined);
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(rejections).toEqual([]);
  });

  it("startSweeper: a failed sweep is counted as failed, and the next interval sweeps again", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const metrics = new Metrics("api");
    const broken = await startTestServer({ sweepIntervalSeconds: 86_400 * 365 });
    try {
      // The store closed under the sweeper: every sweep fails at its first query.
      await broken.services.store.close();
      const { logger, lines } = capturingLogger();
      const sweeper = startSweeper(broken.services, INTERVAL_SECONDS, logger, metrics);
      try {
        vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
        await expect.poll(() => sweeps(metrics, "failed")).toBe(1);
        expect(lines).toEqual([
          expect.objectContaining({
            level: LEVEL.error,
            msg: "sweep failed",
            err: expect.objectContaining({ message: expect.any(String) }),
          }),
        ]);
        vi.advanceTimersByTime(INTERVAL_SECONDS * 1000);
        await expect.poll(() => sweeps(metrics, "failed")).toBe(2);
        expect(await sweeps(metrics, "ok")).toBe(0);
      } finally {
        sweeper.stop();
      }
    } finally {
      await broken.stop().catch(() => undefined);
    }
  });
});
