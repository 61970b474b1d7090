import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { manifestOf } from "../support/test-platform.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";
import { openSelfHostedHarness } from "./selfhost-harness.js";
import type { PlatformHarness } from "./platform-contract.js";

// Racing prepares of one project or one client address, in any process, count their quotas in
// turn: each takes PostgreSQL's advisory lock of its project and of its address first. Here the
// test holds such a lock in a transaction of its own, a barrier the prepare must wait at, and
// sees it waiting in pg_locks before letting go.
await describePostgres("openUploadSession on PostgreSQL: the quota locks", () => {
  const dir = tempDir("deploy-admit-locks-");
  let harness: PlatformHarness;
  let holder: pg.Client;
  let watcher: pg.Client;
  let holderPid: number;
  beforeAll(async () => {
    harness = await openSelfHostedHarness(dir.path, { postgres: testPostgres() });
    holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    watcher = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await Promise.all([holder.connect(), watcher.connect()]);
    holderPid = (await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  });
  afterAll(async () => {
    await Promise.all([holder?.end(), watcher?.end()]);
    await harness?.close();
    dir.cleanup();
  });

  /** Takes the platform's lock of `key` in an open transaction; the returned function commits it. */
  async function hold(key: string): Promise<() => Promise<unknown>> {
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`platform ${key}`]);
    return () => holder.query("COMMIT");
  }

  /** How many lock requests wait for the holder's transaction. */
  async function waitingForHolder(): Promise<number> {
    const { rows } = await watcher.query<{ n: number }>(
      `SELECT COUNT(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND NOT granted AND $1 = ANY(pg_blocking_pids(pid))`,
      [holderPid],
    );
    return rows[0]!.n;
  }

  // Names of their own: the locks are the database's, shared with every other test file's schema.
  const unique = () => randomBytes(6).toString("hex");

  async function waitsAtLock(key: string, input: { projectSlug: string; clientAddress?: string }) {
    const release = await hold(key);
    let opened = false;
    const opening = harness.platform
      .openUploadSession({
        ...input,
        entries: manifestOf({ "/index.html": `<p>${unique()}</p>` }),
        expiresAt: new Date(Date.parse("2030-01-01T01:00:00Z")),
      })
      .then((session) => {
        opened = true;
        return session;
      });
    try {
      await expect.poll(waitingForHolder, { timeout: 10_000 }).toBe(1);
      expect(opened).toBe(false);
    } finally {
      await release();
    }
    expect((await opening).sessionId).toMatch(/\S/);
  }

  it("openUploadSession: waits while another transaction holds its project's lock, then opens", async () => {
    const slug = `lock-${unique()}`;
    await waitsAtLock(`project ${slug}`, { projectSlug: slug });
  });

  it("openUploadSession: waits while another transaction holds its client address's lock, then opens", async () => {
    const address = `2001:db8::${unique().slice(0, 4)}:${unique().slice(0, 4)}`;
    await waitsAtLock(`address ${address}`, { projectSlug: `lock-${unique()}`, clientAddress: address });
  });
});
