import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { describePostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { type ProcessLayout, startProcessLayout } from "../support/process-layout.js";
import { objectStoreEnv, startObjectStore, type TestObjectStore } from "../support/s3-server.js";

/** The connections to database `name` now. */
async function connections(admin: pg.Client, name: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1",
    [name],
  );
  return rows[0]!.n;
}

await describePostgres(
  "the connections of the issue's layout: two API, two upload, two edge processes",
  () => {
    const name = `layout_${process.pid}_${Date.now().toString(36)}`;
    let layout: ProcessLayout;
    let admin: pg.Client;
    let objectStore: TestObjectStore;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      objectStore = await startObjectStore();
      const url = new URL(TEST_DATABASE_URL);
      url.pathname = `/${name}`;
      layout = await startProcessLayout({
        DATABASE_URL: url.href,
        CREATE_LIMIT_PER_ADDRESS: "1000",
        LOG_LEVEL: "warn",
        ...objectStoreEnv(objectStore, "connections/"),
      });
    }, 120_000);

    afterAll(async () => {
      await layout?.close();
      await objectStore?.close();
      await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin?.end();
    });

    it("six processes under 24 deploys and 96 edge reads at once hold at most 6 × DATABASE_MAX_CONNECTIONS (10) between them", async () => {
      const apis = layout.apis.map((p) => p.urls.api!);
      const edges = layout.edges.map((p) => p.urls.edge!);
      let peak = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) peak = Math.max(peak, await connections(admin, name));
      })();
      const projects = await Promise.all(
        Array.from({ length: 12 }, (_, i) => createTestProject(apis[i % 2]!, `layout-${i}`)),
      );
      await Promise.all(
        projects.flatMap((p, i) =>
          [0, 1].map((round) =>
            deployFiles(apis[(i + round) % 2]!, p, {
              "/index.html": `site ${i} round ${round}`,
              [`/asset-${round}.js`]: `console.log(${i}, ${round})`,
            }),
          ),
        ),
      );
      const pages = await Promise.all(
        projects.flatMap((p) =>
          Array.from({ length: 8 }, (_, n) => edgeGet(edges[n % 2]!, `${p.slug}.localhost`, "/")),
        ),
      );
      sampling = false;
      await sampler;
      expect(pages.filter((page) => page.status === 200).length).toBeGreaterThan(0);
      // Pools keep idle connections for 30 s: what is open now is also what they reached.
      const after = await connections(admin, name);
      console.log(`connections of the six processes: peak sampled ${peak}, open after the load ${after}`);
      expect(peak).toBeLessThanOrEqual(60);
      expect(after).toBeLessThanOrEqual(60);
    });
  },
);
