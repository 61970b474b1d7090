import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { connectionBudget, MIN_DATABASE_CONNECTIONS } from "../../src/server/connection-budget.js";
import type { Role } from "../../src/shared/observability/metrics.js";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { describePostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { pino } from "pino";
import { startProcess } from "../../src/server/start.js";
import { ON_LOOPBACK, startTestServer, tempDir } from "../support/server.js";

const ROLE_SETS: Role[][] = [["api", "upload", "edge"], ["api"], ["upload"], ["edge"], ["api", "edge"]];

describe("connectionBudget", () => {
  it("connectionBudget: the parts add up to the setting, the LISTEN only with the edge role, the locks only with the api role", () => {
    for (const roles of ROLE_SETS) {
      for (const total of [MIN_DATABASE_CONNECTIONS, 10, 37]) {
        const budget = connectionBudget(total, roles);
        expect(budget.store + budget.platform + budget.locks + budget.listen).toBe(total);
        expect(budget.listen).toBe(roles.includes("edge") ? 1 : 0);
        expect(budget.locks >= 2).toBe(roles.includes("api"));
        expect(budget.store).toBeGreaterThanOrEqual(1);
        expect(budget.platform).toBeGreaterThanOrEqual(2);
      }
    }
    expect(connectionBudget(10, ["api", "upload", "edge"])).toEqual({
      store: 3,
      platform: 4,
      locks: 2,
      listen: 1,
    });
    expect(() => connectionBudget(MIN_DATABASE_CONNECTIONS - 1, ["api"])).toThrow(RangeError);
  });
});

/** A database of its own, so that every connection to it is the process's. */
async function freshDatabase(): Promise<{
  url: string;
  name: string;
  admin: pg.Client;
  drop(): Promise<void>;
}> {
  const name = `budget_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    name,
    admin,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The connections to database `name` now, by application_name. */
async function connectionsTo(admin: pg.Client, name: string): Promise<Record<string, number>> {
  const { rows } = await admin.query<{ application_name: string; n: number }>(
    `SELECT application_name, count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 GROUP BY 1`,
    [name],
  );
  return Object.fromEntries(rows.map((row) => [row.application_name, row.n]));
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

await describePostgres("DATABASE_MAX_CONNECTIONS on PostgreSQL", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("startProcess: under deploys, lookups and locks in parallel, a process never holds more connections than DATABASE_MAX_CONNECTIONS", async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    const limit = MIN_DATABASE_CONNECTIONS;
    const server = await startTestServer({
      databaseUrl: database.url,
      databaseMaxConnections: limit,
      createLimitPerAddress: 100,
    });
    cleanups.push(() => server.stop());
    let peak: Record<string, number> = {};
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const now = await connectionsTo(database.admin, database.name);
        if (total(now) > total(peak)) peak = now;
      }
    })();
    const projects = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createTestProject(server.urls.api, `budget-${i}`)),
    );
    // Two deploys of each project at once: they queue on its lock while the others go ahead.
    await Promise.all(
      projects.flatMap((p, i) =>
        [0, 1].map((round) =>
          deployFiles(server.urls.api, p, {
            "/index.html": `site ${i} round ${round}`,
            [`/asset-${round}.css`]: `body{} /* ${i} ${round} */`,
          }),
        ),
      ),
    );
    const pages = await Promise.all(
      projects.flatMap((p) => [0, 1, 2].map(() => edgeGet(server.urls.edge, `${p.slug}.localhost`, "/"))),
    );
    sampling = false;
    await sampler;
    expect(pages.every((page) => page.status === 200)).toBe(true);
    // Pools keep idle connections a while: what is open now is also what they reached.
    const after = await connectionsTo(database.admin, database.name);
    expect(total(peak), JSON.stringify(peak)).toBeLessThanOrEqual(limit);
    expect(total(after), JSON.stringify(after)).toBeLessThanOrEqual(limit);
    expect(Object.keys(after).some((name) => name.startsWith("manifest listener"))).toBe(true);
  });

  it("startProcess: a process without the edge role opens no LISTEN connection", async () => {
    const database = await freshDatabase();
    cleanups.push(() => database.drop());
    const dir = tempDir();
    cleanups.push(async () => dir.cleanup());
    const running = await startProcess({
      ...ON_LOOPBACK,
      roles: ["api", "upload"],
      dataDir: dir.path,
      databaseUrl: database.url,
      publicEdgePort: 8080,
      logger: pino({ level: "silent" }),
    });
    cleanups.push(() => running.close());
    const p = await createTestProject(running.urls.api!, "no-listen");
    await deployFiles(running.urls.api!, p, { "/index.html": "published" });
    const names = Object.keys(await connectionsTo(database.admin, database.name));
    expect(names.some((name) => name.startsWith("static-deploy platform"))).toBe(true);
    expect(names.filter((name) => name.startsWith("manifest listener"))).toEqual([]);
  });
});
