import { setImmediate as tick } from "node:timers/promises";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { PostgresLocks } from "../../src/store/index.js";
import { PROJECT_LOCK_SPACE } from "../../src/store/postgres/postgres-locks.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

let named = 0;
/** Locks of a process of their own, whose sessions carry a name no other test uses. */
function locksOf(sessions: number) {
  const applicationName = `locks-${process.pid}-${named++}`;
  const locks = new PostgresLocks({ ...testPostgres(), maxConnections: sessions, applicationName });
  closers.push(() => locks.close());
  return { locks, applicationName };
}

async function admin(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  closers.push(() => client.end());
  return client;
}

/** Sessions named `name` now. */
async function sessions(client: pg.Client, name: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
    [name],
  );
  return rows[0]!.n;
}

/** The sessions holding the project lock of `key`. */
async function holders(client: pg.Client, key: string): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1 AND objsubid = 2
       AND objid::bigint = (hashtext($2)::bigint & 4294967295) ORDER BY pid`,
    [PROJECT_LOCK_SPACE, key],
  );
  return rows.map((row) => row.pid);
}

function gate(): [Promise<void>, () => void] {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return [opened, open];
}

await describePostgres("PostgresLocks within a bounded pool", () => {
  it("PostgresLocks: 24 pieces of work on 4 keys, half taking a second key inside the first in key order, from two processes of 2 sessions each: all run, one at a time per key, never more than 2 sessions each", async () => {
    const db = await admin();
    const first = locksOf(2);
    const second = locksOf(2);
    const keys = [0, 1, 2, 3].map((i) => `${first.applicationName}-key-${i}`);
    const inside = new Map<string, number>();
    let overlaps = 0;
    let peak = 0;
    const critical = async (key: string) => {
      inside.set(key, (inside.get(key) ?? 0) + 1);
      if (inside.get(key)! > 1) overlaps++;
      peak = Math.max(
        peak,
        await sessions(db, first.applicationName),
        await sessions(db, second.applicationName),
      );
      await tick();
      inside.set(key, inside.get(key)! - 1);
    };
    const work = Array.from({ length: 24 }, (_, i) => {
      const { locks } = i % 2 === 0 ? first : second;
      const [a, b] = [keys[i % 4]!, keys[(i + 1) % 4]!].sort();
      if (i % 4 < 2) return locks.run(a!, () => critical(a!));
      return locks.run(a!, async () => {
        await critical(a!);
        await locks.run(b!, () => critical(b!));
      });
    });
    await Promise.all(work);
    expect(overlaps).toBe(0);
    expect(peak).toBeLessThanOrEqual(2);
    // Idle sessions stay pooled a while: what is open now is also what each pool reached.
    expect(await sessions(db, first.applicationName)).toBeLessThanOrEqual(2);
    expect(await sessions(db, second.applicationName)).toBeLessThanOrEqual(2);
  });

  it("PostgresLocks: a lock taken inside another's work goes on the same session, and the same key taken again inside is held already", async () => {
    const db = await admin();
    const { locks, applicationName } = locksOf(2);
    const [outer, inner] = [`${applicationName}-outer`, `${applicationName}-inner`];
    const seen = await locks.run(outer, () =>
      locks.run(inner, async () => ({
        outer: await holders(db, outer),
        inner: await holders(db, inner),
        again: await locks.run(outer, () => holders(db, outer)),
      })),
    );
    expect(seen.outer).toHaveLength(1);
    expect(seen.inner).toEqual(seen.outer);
    expect(seen.again).toEqual(seen.outer);
    // Let go of on the way out, the nested one too.
    expect(await holders(db, inner)).toEqual([]);
    expect(await holders(db, outer)).toEqual([]);
    // The sweep's projects, inside tryRun, on the sweep's session.
    const swept = await locks.tryRun(outer, () => locks.run(inner, () => holders(db, inner)));
    expect(swept).toHaveLength(1);
    expect(await sessions(db, applicationName)).toBe(1);
  });

  it("PostgresLocks: with every session held, more work waits its turn instead of failing, and runs once one is free", async () => {
    const db = await admin();
    const { locks, applicationName } = locksOf(2);
    const [held, letGo] = gate();
    const entered: string[] = [];
    const holding = ["a", "b"].map((key) =>
      locks.run(`${applicationName}-${key}`, async () => {
        entered.push(key);
        await held;
      }),
    );
    let third: Promise<void> | undefined;
    try {
      await expect.poll(() => entered.length).toBe(2);
      third = locks.run(`${applicationName}-c`, async () => void entered.push("c"));
      // Both sessions are busy and no third is opened; the third work waits (in memory: a pg Pool's
      // queue would give up after connectTimeoutMs).
      await expect.poll(() => sessions(db, applicationName)).toBe(2);
      for (let i = 0; i < 10; i++) await tick();
      expect(entered.toSorted()).toEqual(["a", "b"]);
    } finally {
      letGo();
    }
    await Promise.all([...holding, third]);
    expect(entered[2]).toBe("c");
    // tryRun of a key this process runs now is refused without asking the database.
    const [sweeping, done] = gate();
    const sweep = locks.tryRun(`${applicationName}-sweep`, () => sweeping);
    expect(await locks.tryRun(`${applicationName}-sweep`, async () => "twice")).toBeUndefined();
    done();
    await sweep;
  });

  it("PostgresLocks: work a lock's work left running takes its locks as its own once that work has ended, not on the session given back", async () => {
    const { locks, applicationName } = locksOf(2);
    const [later, goOn] = gate();
    let escaped: Promise<void> | undefined;
    let ran = false;
    await locks.run(`${applicationName}-a`, async () => {
      escaped = later.then(() => locks.run(`${applicationName}-b`, async () => void (ran = true)));
    });
    // Both sessions busy: the escaped work must wait for one of its own.
    const [held, letGo] = gate();
    const entered: string[] = [];
    const holding = ["c", "d"].map((key) =>
      locks.run(`${applicationName}-${key}`, async () => {
        entered.push(key);
        await held;
      }),
    );
    try {
      await expect.poll(() => entered.length).toBe(2);
      goOn();
      for (let i = 0; i < 10; i++) await tick();
      expect(ran).toBe(false);
    } finally {
      letGo();
    }
    await Promise.all([...holding, escaped]);
    expect(ran).toBe(true);
  });
});
