import { createServer, type Server, type Socket } from "node:net";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { isDatabaseUnavailable } from "../../src/shared/database/postgres-errors.js";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A TCP port that accepts connections and never says a word: a database that hangs. */
async function silentPort(): Promise<number> {
  const server = createServer((socket) => sockets.push(socket));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => new Error("expected a failure"),
    (error: unknown) => error,
  );
}

it("openPostgres: a database that accepts and never answers fails after the connect timeout, as unavailable", async () => {
  const port = await silentPort();
  const db = await openPostgres({ url: `postgres://postgres@127.0.0.1:${port}/test`, connectTimeoutMs: 200 });
  try {
    const error = await failureOf(sql`SELECT 1`.execute(db));
    expect(String(error)).toMatch(/timeout/i);
    expect(isDatabaseUnavailable(error)).toBe(true);
  } finally {
    await db.destroy();
  }
});

it("openPostgres: nothing listening fails at once, as unavailable", async () => {
  const port = await closedPort();
  const db = await openPostgres({
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    connectTimeoutMs: 5_000,
  });
  try {
    const error = await failureOf(sql`SELECT 1`.execute(db));
    expect(isDatabaseUnavailable(error)).toBe(true);
  } finally {
    await db.destroy();
  }
});

await describePostgres("PostgreSQL connections", () => {
  it("openPostgres: a statement past the statement timeout is cancelled, as unavailable", async () => {
    const db = await openPostgres(testPostgres({ statementTimeoutMs: 100 }));
    try {
      const error = await failureOf(sql`SELECT pg_sleep(10)`.execute(db));
      expect((error as { code?: string }).code).toBe("57014");
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  it("openPostgres: a database that does not exist is unavailable; a wrong statement is not", async () => {
    const missing = new URL(testPostgres().url);
    missing.pathname = "/no_such_database_here";
    const nowhere = await openPostgres({ url: missing.toString() });
    const db = await openPostgres(testPostgres());
    try {
      expect(isDatabaseUnavailable(await failureOf(sql`SELECT 1`.execute(nowhere)))).toBe(true);
      expect(isDatabaseUnavailable(await failureOf(sql`SELECT * FROM no_such_table`.execute(db)))).toBe(
        false,
      );
    } finally {
      await Promise.all([nowhere.destroy(), db.destroy()]);
    }
  });

  it("openPostgres: a schema another session is creating meanwhile is opened once that session commits", async () => {
    const options = testPostgres({ applicationName: `schema-race-${process.pid}` });
    const creator = new pg.Client({ connectionString: options.url });
    // Asked outside the creator's transaction, which would read pg_stat_activity once and keep it.
    const watcher = new pg.Client({ connectionString: options.url });
    await Promise.all([creator.connect(), watcher.connect()]);
    try {
      await creator.query("BEGIN");
      await creator.query(`CREATE SCHEMA ${options.schema}`);
      const opening = openPostgres(options);
      // The barrier: its CREATE SCHEMA IF NOT EXISTS waits on the uncommitted one, then loses.
      await expect
        .poll(async () => {
          const { rows } = await watcher.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
            [options.applicationName],
          );
          return rows[0]!.n;
        })
        .toBe(1);
      await creator.query("COMMIT");
      const db = await opening;
      try {
        const { rows } = await sql<{ s: string }>`SELECT current_schema() AS s`.execute(db);
        expect(rows).toEqual([{ s: options.schema }]);
      } finally {
        await db.destroy();
      }
    } finally {
      await Promise.all([creator.end(), watcher.end()]);
    }
  });

  it("openPostgres: a schema the role may not create fails the open with PostgreSQL's error, and closes its pool", async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    const role = "static_deploy_test_no_create";
    try {
      await admin.query(
        `DO $$ BEGIN CREATE ROLE ${role} LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
      );
      const url = new URL(TEST_DATABASE_URL);
      url.username = role;
      const options = {
        ...testPostgres({ applicationName: `no-create-${process.pid}` }),
        url: url.toString(),
      };
      const error = await failureOf(openPostgres(options));
      expect((error as { code?: string }).code).toBe("42501");
      // The server ends the backend a moment after the pool hangs up: asked until it has.
      const connected = async () =>
        (
          await admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
            [options.applicationName],
          )
        ).rows[0]!.n;
      await expect.poll(connected).toBe(0);
    } finally {
      await admin.end();
    }
  });

  it("openPostgres: each schema is its own namespace, created on first use", async () => {
    const a = await openPostgres<unknown>(testPostgres());
    const b = await openPostgres<unknown>(testPostgres());
    try {
      await sql`CREATE TABLE things (name text)`.execute(a);
      await sql`INSERT INTO things VALUES ('in a')`.execute(a);
      await sql`CREATE TABLE things (name text)`.execute(b);
      const { rows } = await sql<{ name: string }>`SELECT name FROM things`.execute(b);
      expect(rows).toEqual([]);
      const count = await sql<{ n: number }>`SELECT count(*) AS n FROM things`.execute(a);
      expect(count.rows[0]?.n).toBe(1);
    } finally {
      await Promise.all([a.destroy(), b.destroy()]);
    }
  });

  it("openPostgres: a connection cut under a query fails that query as unavailable, never the process", async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const via = new URL(TEST_DATABASE_URL);
    via.host = `127.0.0.1:${proxy.port}`;
    const db = await openPostgres({ ...testPostgres(), url: via.toString() });
    try {
      await sql`SELECT 1`.execute(db);
      const running = failureOf(sql`SELECT pg_sleep(30)`.execute(db));
      await proxy.cut();
      expect(isDatabaseUnavailable(await running)).toBe(true);
      // Vitest fails the file on an unhandled "error" event of the dropped client.
    } finally {
      await db.destroy();
      await proxy.close();
    }
  });
});
