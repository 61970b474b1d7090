import { afterEach, expect, it, vi } from "vitest";
import { startSweeper } from "../../src/server/sweeper.js";
import { PostgresLocks } from "../../src/store/index.js";
import { capturingLogger } from "../support/log-lines.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;
const INTERVAL_SECONDS = 60;

await describePostgres("the sweeper of processes sharing PostgreSQL", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  it("startSweeper: two processes on one schema, ticking half an interval apart, sweep once per interval between them, not once each", async () => {
    const { url, schema } = testPostgres();
    // Their own sweepers never fire (20 days: a year would pass setInterval's limit, which makes it
    // 1 ms): the ones under test are started here.
    const settings = { databaseUrl: url, databaseSchema: schema, sweepIntervalSeconds: 86_400 * 20 };
    servers.push(await startTestServer(settings), await startTestServer(settings));
    const [first, second] = servers as [Server, Server];
    expect(first.services.locks).toBeInstanceOf(PostgresLocks);
    // One time for both, moved by the test with the interval timers.
    for (const server of servers) server.clock.freeze();
    const at = Math.max(first.clock.now(), second.clock.now());
    for (const server of servers) server.clock.advanceTo(at);
    const step = (seconds: number) => {
      for (const server of servers) server.clock.advance(seconds);
      vi.advanceTimersByTime(seconds * 1000);
    };
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const logs = [capturingLogger(), capturingLogger()];
    const sweepers = [startSweeper(first.services, INTERVAL_SECONDS, logs[0]!.logger)];
    try {
      step(INTERVAL_SECONDS / 2);
      sweepers.push(startSweeper(second.services, INTERVAL_SECONDS, logs[1]!.logger));
      // Six half intervals: the first process ticks at 60, 120, 180 s, the second at 90, 150, 210 s.
      for (let tick = 0; tick < 6; tick++) {
        step(INTERVAL_SECONDS / 2);
        const ticking = logs[tick % 2]!;
        await expect.poll(() => ticking.lines.length).toBe(Math.floor(tick / 2) + 1);
      }
    } finally {
      for (const sweeper of sweepers) sweeper.stop();
    }
    const messages = logs.map(({ lines }) => lines.map((line) => line.msg));
    const swept = messages.flat().filter((msg) => msg === "sweep").length;
    expect(swept, JSON.stringify(messages)).toBe(3);
    expect(messages.flat().filter((msg) => msg === "sweep skipped: another process's turn")).toHaveLength(3);
  });

  it("PostgresLocks.claimTurn: one claimant of two gets a turn; it runs out after its time, by the claimant's clock", async () => {
    const options = testPostgres();
    const { openPostgresStore } = await import("../../src/store/index.js");
    const store = await openPostgresStore(options);
    let now = 1_000_000;
    const first = new PostgresLocks(options, { now: () => now });
    const second = new PostgresLocks(options, { now: () => now });
    try {
      const claims = await Promise.all([first.claimTurn("sweep", 1000), second.claimTurn("sweep", 1000)]);
      expect(claims.toSorted()).toEqual([false, true]);
      now += 999;
      expect(await first.claimTurn("sweep", 1000)).toBe(false);
      expect(await second.claimTurn("sweep", 1000)).toBe(false);
      // Another name is another turn.
      expect(await second.claimTurn("other", 1000)).toBe(true);
      now += 1;
      expect(await second.claimTurn("sweep", 1000)).toBe(true);
      expect(await first.claimTurn("sweep", 1000)).toBe(false);
    } finally {
      await first.close();
      await second.close();
      await store.close();
    }
  });
});
