import { createHash } from "node:crypto";
import { type Kysely, sql, type Transaction } from "kysely";
import { afterEach, expect, it } from "vitest";
import { DatabaseUnavailableError } from "../../src/core/errors.js";
import {
  HostnameConflictError,
  HostnameWithheldError,
  type ProjectRecord,
  type Store,
} from "../../src/core/ports/index.js";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { openPostgresStore, PostgresLocks } from "../../src/store/index.js";
import { EXCLUSIVE_LOCK_SPACE, PROJECT_LOCK_SPACE } from "../../src/store/postgres/postgres-locks.js";
import { HOSTNAME_LOCK_SPACE } from "../../src/store/postgres/postgres-store.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

const sha = (label: string) => createHash("sha256").update(label).digest("hex");
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function project(n: number): ProjectRecord {
  const slug = `p${n}-otter-a1b2c`;
  return {
    slug,
    projectHash: sha(`hash${n}`),
    anonFingerprint: sha(`fp${n}`),
    tokenHash: sha(`token${n}`),
    generatedHostname: `${slug}.localhost`,
    customHostname: null,
    domain: null,
    revisionId: null,
    createdAt: "2030-01-01T00:00:00.000Z",
    expiresAt: "2030-01-31T00:00:00.000Z",
  };
}

/** Two stores on one schema, each with its own pool: two API processes. */
async function twoStores(): Promise<[Store, Store]> {
  const options = testPostgres();
  const first = await openPostgresStore(options);
  const second = await openPostgresStore(options);
  closers.push(
    () => first.close(),
    () => second.close(),
  );
  return [first, second];
}

/** Sessions holding (`granted`) or waiting for the advisory lock of `key` in `space`, and their names. */
async function advisoryLock(
  db: Kysely<unknown>,
  space: number,
  key: string,
  granted: boolean,
): Promise<Array<{ pid: number; application: string }>> {
  const { rows } = await sql<{ pid: number; application: string }>`
    SELECT l.pid, a.application_name AS application FROM pg_locks l JOIN pg_stat_activity a USING (pid)
    WHERE l.locktype = 'advisory' AND l.granted = ${granted} AND l.classid = ${space} AND l.objsubid = 2
      AND l.objid::bigint = (hashtext(${key})::bigint & 4294967295)`.execute(db);
  return rows;
}

/** A promise and the function that resolves it. */
function gate(): [Promise<void>, () => void] {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return [opened, open];
}

/**
 * Another process's transaction on `db`: runs `first`, then stays open until `letGo` is called,
 * then runs `last` and commits (`committed`). Resolves once `first` has run. The test's cleanup
 * lets it go too, so a failed expectation never leaves it waiting.
 */
async function openTransaction(
  db: Kysely<unknown>,
  first: (trx: Transaction<unknown>) => Promise<unknown>,
  last?: (trx: Transaction<unknown>) => Promise<unknown>,
): Promise<{ letGo: () => void; committed: Promise<void> }> {
  const [held, letGo] = gate();
  const [inside, entered] = gate();
  closers.push(async () => letGo());
  const committed = db.transaction().execute(async (trx) => {
    await first(trx);
    entered();
    await held;
    await last?.(trx);
  });
  await Promise.race([inside, committed]);
  return { letGo, committed };
}

/** What `openTransaction` runs first to hold a hostname's advisory lock, as the store takes it. */
const lockHostname = (name: string) => (trx: Transaction<unknown>) =>
  sql`SELECT pg_advisory_xact_lock(${HOSTNAME_LOCK_SPACE}, hashtext(${name}))`.execute(trx);

await describePostgres("postgres store across processes", () => {
  it("setCustomHostname: 10 projects claiming 3 hostnames at once through two stores give exactly one owner each", async () => {
    const stores = await twoStores();
    const names = ["a.example.com", "b.example.com", "c.example.com"];
    for (let n = 0; n < 10; n++) await stores[n % 2]!.createProject(project(n));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, n) => stores[n % 2]!.setCustomHostname(project(n).slug, names[n % 3]!)),
    );
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(outcomes.length - refused.length).toBe(3);
    for (const o of refused)
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(HostnameConflictError);
    for (const name of names) {
      const holder = await stores[0].getProjectByHostname(name);
      expect(holder?.customHostname).toBe(name);
    }
  });

  it("held_hostnames: the database itself refuses a second holder of a name, even to a writer that skips the store", async () => {
    const options = testPostgres();
    const store = await openPostgresStore(options);
    closers.push(() => store.close());
    await store.createProject(project(1));
    await store.createProject(project(2));
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const direct = sql`UPDATE projects SET custom_hostname = ${project(1).generatedHostname}
                       WHERE slug = ${project(2).slug}`.execute(db);
    await expect(direct).rejects.toMatchObject({ code: "23505" });
    expect((await store.getProject(project(2).slug))?.customHostname).toBeNull();
  });

  it("PostgresLocks: work on one project from two processes runs one at a time; another project does not wait", async () => {
    const options = testPostgres();
    const first = new PostgresLocks(options);
    const second = new PostgresLocks(options);
    closers.push(
      () => first.close(),
      () => second.close(),
    );
    const key = `${options.schema}-project`;
    const order: string[] = [];
    let letGo = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let entered = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));

    const a = first.run(key, async () => {
      order.push("a starts");
      entered();
      await held;
      order.push("a ends");
    });
    await inside;
    const b = second.run(key, async () => void order.push("b runs"));
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const waiting = async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2
          AND objid::bigint = (hashtext(${key})::bigint & 4294967295)`.execute(db);
      return rows[0]?.n ?? 0;
    };
    await expect.poll(waiting, { timeout: 10_000 }).toBe(1);
    // Another project's work goes ahead while the first project's lock is held.
    await second.run(`${key}-other`, async () => void order.push("other runs"));
    letGo();
    await Promise.all([a, b]);
    expect(order).toEqual(["a starts", "other runs", "a ends", "b runs"]);
  });

  it("PostgresLocks.tryRun: while one process sweeps, another's sweep is skipped without running; afterwards it runs", async () => {
    const options = testPostgres();
    const first = new PostgresLocks(options);
    const second = new PostgresLocks(options);
    closers.push(
      () => first.close(),
      () => second.close(),
    );
    const key = `${options.schema}-sweep`;
    let letGo = () => {};
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let entered = () => {};
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const a = first.tryRun(key, async () => {
      entered();
      await held;
      return "first swept";
    });
    await inside;
    let ran = false;
    expect(await second.tryRun(key, async () => (ran = true))).toBeUndefined();
    expect(ran).toBe(false);
    letGo();
    expect(await a).toBe("first swept");
    expect(await second.tryRun(key, async () => "second swept")).toBe("second swept");
  });

  it("postgres store: a database gone away answers DATABASE_UNAVAILABLE, then serves again once it is back", async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    closers.push(() => proxy.close());
    const via = new URL(TEST_DATABASE_URL);
    via.hostname = "127.0.0.1";
    via.port = String(proxy.port);
    const store = await openPostgresStore({
      ...testPostgres(),
      url: via.toString(),
      connectTimeoutMs: 1_000,
    });
    closers.push(() => store.close());
    await store.createProject(project(1));

    await proxy.cut();
    const failure = store.getProject(project(1).slug);
    await expect(failure).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(failure).rejects.toMatchObject({ code: "DATABASE_UNAVAILABLE" });
    // The outage itself goes with it, for the log.
    expect(((await failure.catch((error: unknown) => error)) as Error).cause).toBeInstanceOf(Error);
    await expect(store.ping()).rejects.toBeInstanceOf(DatabaseUnavailableError);

    await proxy.restore();
    expect((await store.getProject(project(1).slug))?.slug).toBe(project(1).slug);
  });

  it("openPostgresStore: a database that cannot be reached fails with DATABASE_UNAVAILABLE, not a hang", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: 1 });
    await proxy.cut();
    const url = `postgres://postgres@127.0.0.1:${proxy.port}/test`;
    await expect(openPostgresStore({ url, connectTimeoutMs: 1_000 })).rejects.toBeInstanceOf(
      DatabaseUnavailableError,
    );
  });

  it("setCustomHostname: waits for the name's advisory lock, so a release committed meanwhile refuses the name", async () => {
    const options = testPostgres();
    const store = await openPostgresStore(options);
    closers.push(() => store.close());
    await store.createProject(project(1));
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const name = `${options.schema.replaceAll("_", "-")}.example.com`;
    // Another process deleting the name's holder: it holds the name while it records the release.
    const releasing = await openTransaction(db, lockHostname(name), (trx) =>
      sql`INSERT INTO hostname_releases (hostname, project_slug, released_at, withheld_until)
        VALUES (${name}, 'gone-otter-a1b2c', '2030-01-05T00:00:00.000Z', NULL)`.execute(trx),
    );
    const claim = store.setCustomHostname(project(1).slug, name).then(
      () => "taken",
      (error: unknown) => error,
    );
    await expect
      .poll(() => advisoryLock(db, HOSTNAME_LOCK_SPACE, name, false), { timeout: 10_000 })
      .toHaveLength(1);
    releasing.letGo();
    await releasing.committed;
    expect(await claim).toBeInstanceOf(HostnameWithheldError);
    expect((await store.getProject(project(1).slug))?.customHostname).toBeNull();
  });

  it("setCustomHostname: takes the advisory locks of its names in name order, whatever the order given", async () => {
    const options = testPostgres();
    const store = await openPostgresStore(options);
    closers.push(() => store.close());
    await store.createProject(project(1));
    const prefix = options.schema.replaceAll("_", "-");
    const [first, second] = [`${prefix}-a.example.com`, `${prefix}-b.example.com`];
    await store.setCustomHostname(project(1).slug, first);
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const holding = await openTransaction(db, lockHostname(first));
    // The new name is given first, the released one second: the released one sorts first.
    const release = {
      hostname: first,
      projectSlug: project(1).slug,
      releasedAt: "2030-01-05T00:00:00.000Z",
      withheldUntil: null,
    };
    const change = store.setCustomHostname(project(1).slug, second, { release });
    await expect
      .poll(() => advisoryLock(db, HOSTNAME_LOCK_SPACE, first, false), { timeout: 10_000 })
      .toHaveLength(1);
    // Waiting for the first name, it holds nothing of the second yet.
    expect(await advisoryLock(db, HOSTNAME_LOCK_SPACE, second, true)).toEqual([]);
    holding.letGo();
    await holding.committed;
    await change;
    expect((await store.getProject(project(1).slug))?.customHostname).toBe(second);
  });

  it("PostgresLocks: the lock is held on a session of its own, named static-deploy locks, kept for the next work", async () => {
    const options = testPostgres();
    const locks = new PostgresLocks(options);
    closers.push(() => locks.close());
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const key = `${options.schema}-project`;
    const holders = () => advisoryLock(db, PROJECT_LOCK_SPACE, key, true);
    const first = await locks.run(key, holders);
    expect(first).toEqual([{ pid: expect.any(Number), application: "static-deploy locks" }]);
    expect(await holders()).toEqual([]);
    expect(await locks.run(key, holders)).toEqual(first);
    // tryRun's lock too, on the same kept session.
    const sweepers = () => advisoryLock(db, EXCLUSIVE_LOCK_SPACE, key, true);
    expect(await locks.tryRun(key, sweepers)).toEqual(first);
    expect(await sweepers()).toEqual([]);
    expect(await locks.tryRun(key, sweepers)).toEqual(first);
  });

  it("PostgresLocks: a lock the database refuses fails the work unrun, and its session is closed, not reused", async () => {
    const options = testPostgres();
    const locks = new PostgresLocks(options);
    closers.push(() => locks.close());
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const key = `${options.schema}-project`;
    const holders = () => advisoryLock(db, PROJECT_LOCK_SPACE, key, true);
    const exclusive = () => advisoryLock(db, EXCLUSIVE_LOCK_SPACE, key, true);
    let ran = false;
    const work = async () => void (ran = true);
    // A NUL byte is not text to PostgreSQL: the lock query itself fails.
    const before = await locks.run(key, holders);
    await expect(locks.run("refused\u0000key", work)).rejects.toMatchObject({ code: "22021" });
    const after = await locks.run(key, holders);
    expect(after).toHaveLength(1);
    expect(after[0]?.pid).not.toBe(before[0]?.pid);

    const sweeping = await locks.tryRun(key, exclusive);
    await expect(locks.tryRun("refused\u0000key", work)).rejects.toMatchObject({ code: "22021" });
    const next = await locks.tryRun(key, exclusive);
    expect(next).toHaveLength(1);
    expect(next?.[0]?.pid).not.toBe(sweeping?.[0]?.pid);
    expect(ran).toBe(false);
  });

  it("PostgresLocks: a lock session ended under the work leaves the work's result standing, the next work a new session, and close still ending", async () => {
    const options = testPostgres();
    const locks = new PostgresLocks(options);
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const key = `${options.schema}-project`;
    // The work ends its own lock's session (a restart, an operator's pg_terminate_backend) and
    // waits until it is gone, so the unlock after it fails.
    const endOwnSession = (space: number) => async () => {
      const [holder] = await advisoryLock(db, space, key, true);
      await sql`SELECT pg_terminate_backend(${holder!.pid})`.execute(db);
      const alive = async () =>
        (
          await sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${holder!.pid}`.execute(db)
        ).rows[0]?.n;
      await expect.poll(alive).toBe(0);
      return holder!.pid;
    };
    try {
      const ended = await locks.run(key, endOwnSession(PROJECT_LOCK_SPACE));
      const next = await locks.run(key, () => advisoryLock(db, PROJECT_LOCK_SPACE, key, true));
      expect(next).toEqual([{ pid: expect.any(Number), application: "static-deploy locks" }]);
      expect(next[0]?.pid).not.toBe(ended);

      const sweepEnded = await locks.tryRun(key, endOwnSession(EXCLUSIVE_LOCK_SPACE));
      const nextSweep = await locks.tryRun(key, () => advisoryLock(db, EXCLUSIVE_LOCK_SPACE, key, true));
      expect(nextSweep).toHaveLength(1);
      expect(nextSweep?.[0]?.pid).not.toBe(sweepEnded);
    } finally {
      // Ends only once every session is given back: one kept by a failed unlock would hold it.
      await locks.close();
    }
  });

  it("PostgresLocks.close: work asked for afterwards is refused without running", async () => {
    const locks = new PostgresLocks(testPostgres());
    await locks.run("before-close", async () => undefined);
    await locks.close();
    let ran = false;
    await expect(locks.run("after-close", async () => void (ran = true))).rejects.toThrow();
    expect(ran).toBe(false);
  });

  it("createProject and deleteProject: each waits for the advisory lock of its hostnames", async () => {
    const options = testPostgres();
    const store = await openPostgresStore(options);
    closers.push(() => store.close());
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    // A name no other test process locks (advisory locks are the whole database's).
    const name = `${options.schema.replaceAll("_", "-")}.localhost`;
    const record = { ...project(1), generatedHostname: name };
    const release = {
      hostname: name,
      projectSlug: record.slug,
      releasedAt: "2030-01-05T00:00:00.000Z",
      withheldUntil: null,
    };
    for (const write of [
      () => store.createProject(record),
      () => store.deleteProject(record.slug, [release]),
    ]) {
      const holding = await openTransaction(db, lockHostname(name));
      let settled = false;
      const writing = write().finally(() => (settled = true));
      await expect
        .poll(() => advisoryLock(db, HOSTNAME_LOCK_SPACE, name, false), { timeout: 10_000 })
        .toHaveLength(1);
      expect(settled).toBe(false);
      holding.letGo();
      await holding.committed;
      expect(await writing).toBe(true);
    }
    expect(await store.getHostnameRelease(name)).toEqual(release);
  });

  it("createProject: false when another writer takes its generated hostname as a custom one and commits meanwhile", async () => {
    const options = testPostgres();
    const store = await openPostgresStore(options);
    closers.push(() => store.close());
    await store.createProject(project(1));
    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const name = project(2).generatedHostname;
    // A writer that skips the store's hostname lock: only held_hostnames stands between the two.
    const taking = await openTransaction(db, (trx) =>
      sql`UPDATE projects SET custom_hostname = ${name} WHERE slug = ${project(1).slug}`.execute(trx),
    );
    const creating = store.createProject(project(2));
    const waiting = async () => {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks l
        JOIN pg_stat_activity a USING (pid)
        WHERE l.locktype = 'transactionid' AND NOT l.granted AND a.query ILIKE 'insert into "projects"%'`.execute(
        db,
      );
      return rows[0]?.n ?? 0;
    };
    await expect.poll(waiting, { timeout: 10_000 }).toBeGreaterThan(0);
    taking.letGo();
    await taking.committed;
    expect(await creating).toBe(false);
    expect(await store.getProject(project(2).slug)).toBeUndefined();
    expect((await store.getProjectByHostname(name))?.slug).toBe(project(1).slug);
  });
});
