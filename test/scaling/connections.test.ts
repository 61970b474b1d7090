import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { startBalancer, type Balancer } from "../support/balancer.js";
import { describePostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { type RoleUrls, type ServerProcess, spawnProcess } from "../support/server-process.js";
import { tempDir } from "../support/server.js";
import { objectStoreEnv, startObjectStore, type TestObjectStore } from "../support/s3-server.js";

type Process = ServerProcess<RoleUrls>;

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
    const dirs: { path: string; cleanup(): void }[] = [];
    const processes: Process[] = [];
    const balancers: Balancer[] = [];
    let admin: pg.Client;
    let objectStore: TestObjectStore;

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      objectStore = await startObjectStore();
      const url = new URL(TEST_DATABASE_URL);
      url.pathname = `/${name}`;
      const shared = {
        DATABASE_URL: url.href,
        CREATE_LIMIT_PER_ADDRESS: "1000",
        LOG_LEVEL: "warn",
        ...objectStoreEnv(objectStore, "connections/"),
      };
      const start = async (roles: string, env: Record<string, string> = {}) => {
        const dir = tempDir();
        dirs.push(dir);
        const started = await spawnProcess(dir.path, { ...shared, ROLES: roles, ...env });
        processes.push(started);
        return started;
      };
      // The first process migrates; the others find the schemas ready.
      const uploads = [await start("upload"), await start("upload")];
      const uploadBalancer = await startBalancer(uploads.map((p) => p.urls.upload!));
      balancers.push(uploadBalancer);
      const apiEnv = { UPLOAD_PUBLIC_URL: uploadBalancer.url, PUBLIC_EDGE_PORT: "8080" };
      await Promise.all([start("api", apiEnv), start("api", apiEnv), start("edge"), start("edge")]);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(balancers.map((b) => b.close()));
      await Promise.all(processes.map((p) => p.stop()));
      for (const dir of dirs) dir.cleanup();
      await objectStore?.close();
      await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin?.end();
    });

    it("six processes under 24 deploys and 96 edge reads at once hold at most 6 × DATABASE_MAX_CONNECTIONS (10) between them", async () => {
      const apis = processes.filter((p) => p.urls.api).map((p) => p.urls.api!);
      const edges = processes.filter((p) => p.urls.edge).map((p) => p.urls.edge!);
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
