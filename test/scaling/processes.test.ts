import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runBinary, writeSite } from "../client/helpers.js";
import { createTestProject, identity, manifestOf } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { type LayoutProcess, type ProcessLayout, startProcessLayout } from "../support/process-layout.js";
import { sumOf } from "../support/prometheus-text.js";
import { objectStoreEnv, startObjectStore, type TestObjectStore } from "../support/s3-server.js";

type Process = LayoutProcess;

/** Polls `edge` until `host` serves `body` at `path`; the milliseconds it took, or Infinity past `limitMs`. */
async function servedWithin(edge: string, host: string, path: string, body: string, limitMs: number) {
  const started = performance.now();
  for (;;) {
    const response = await edgeGet(edge, host, path);
    if (response.status === 200 && response.body.toString() === body) return performance.now() - started;
    if (performance.now() - started > limitMs) return Infinity;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

await describePostgres(
  "two API, two upload and two edge processes on one PostgreSQL and one object store",
  () => {
    let layout: ProcessLayout;
    let apis: Process[];
    let uploads: Process[];
    let edges: Process[];
    let objectStore: TestObjectStore;

    beforeAll(async () => {
      const { url, schema } = testPostgres();
      objectStore = await startObjectStore();
      layout = await startProcessLayout({
        DATABASE_URL: url,
        DATABASE_SCHEMA: schema,
        CREATE_LIMIT_PER_ADDRESS: "1000",
        LOG_LEVEL: "warn",
        ...objectStoreEnv(objectStore, "processes/"),
      });
      ({ apis, uploads, edges } = layout);
    }, 120_000);

    afterAll(async () => {
      await layout?.close();
      await objectStore?.close();
    });

    it("deploy: prepared through API 1, uploaded through upload 2, completed through API 2; both edges serve it within 1 s", async () => {
      const [api1, api2] = apis.map((p) => p.urls.api!) as [string, string];
      const p = await createTestProject(api1, "split");
      const files = { "/index.html": "<h1>split across processes</h1>" };
      const { manifest, byHash } = await manifestOf(p.slug, files);
      const prepared = await api(api1, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      });
      expect(prepared.status).toBe(200);
      const upload2 = new URL(prepared.body.urls.upload);
      const direct = `${uploads[1]!.urls.upload}${upload2.pathname}${upload2.search}`;
      const [hash] = prepared.body.buckets[0] as string[];
      const uploaded = await uploadBucket(direct, prepared.body.uploadJwt, [
        { hash: hash!, bytes: byHash.get(hash!)! },
      ]);
      expect(uploaded.status).toBe(201);
      const deployed = await api(api2, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: { ...identity(p), deployId: prepared.body.deployId, completionJwt: uploaded.body.result.jwt },
      });
      expect(deployed.status).toBe(200);
      for (const edge of edges) {
        const host = `${p.slug}.localhost`;
        expect(await servedWithin(edge.urls.edge!, host, "/", files["/index.html"], 1_000)).toBeLessThan(
          1_000,
        );
        const revisionHost = `${deployed.body.revisionId}--${p.slug}.localhost`;
        expect((await edgeGet(edge.urls.edge!, revisionHost, "/")).status).toBe(200);
      }
    });

    it("deploy: the real client through the API balancer; a redeploy reaches both edges within 1 s", async () => {
      const work = layout.dir();
      const site = join(work, "site");
      const env = {
        DEPLOY_API_URL: layout.apiUrl,
        DEPLOY_CONFIG_DIR: join(work, "config"),
        DEPLOY_RETRY_BASE_MS: "20",
        PATH: process.env.PATH ?? "",
      };
      await writeSite(site, { "index.html": "<h1>one</h1>", "app.js": "console.log(1)" });
      const first = JSON.parse((await runBinary([site, "--json"], env)).stdout);
      await writeSite(site, { "index.html": "<h1>two</h1>", "app.js": "console.log(1)" });
      const second = JSON.parse((await runBinary([site, "--json"], env)).stdout);
      expect(second.projectSlug).toBe(first.projectSlug);
      expect(second.uploaded).toBe(1);
      for (const edge of edges) {
        const host = `${second.projectSlug}.localhost`;
        expect(await servedWithin(edge.urls.edge!, host, "/", "<h1>two</h1>", 1_000)).toBeLessThan(1_000);
        const old = await edgeGet(
          edge.urls.edge!,
          `${first.revisionId}--${first.projectSlug}.localhost`,
          "/",
        );
        expect(old.body.toString()).toBe("<h1>one</h1>");
      }
    });

    it("deploy: kill -9 of an API process during the client's deploy; its retry through the other loses nothing", async () => {
      const work = layout.dir();
      const site = join(work, "site");
      const files: Record<string, Buffer> = {};
      for (let i = 0; i < 40; i++) files[`assets/part-${i}.bin`] = randomBytes(200_000);
      files["index.html"] = Buffer.from("<h1>survived</h1>");
      await writeSite(site, files);
      const env = {
        DEPLOY_API_URL: layout.apiUrl,
        DEPLOY_CONFIG_DIR: join(work, "config"),
        DEPLOY_RETRY_BASE_MS: "20",
        PATH: process.env.PATH ?? "",
      };
      const uploadsBefore = await requestCount(uploads, "upload");
      const apiBefore = await requestCount([apis[0]!], "api");
      const running = runBinary([site, "--json"], env);
      // The deploy is under way (prepared, its buckets going up) when the first API process dies.
      while ((await requestCount(uploads, "upload")) === uploadsBefore) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Round robin gave it some of this deploy's requests (create, prepare) before it died.
      expect(await requestCount([apis[0]!], "api")).toBeGreaterThan(apiBefore);
      await apis[0]!.kill();
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      const deployed = JSON.parse(run.stdout);
      for (const edge of edges) {
        const host = `${deployed.projectSlug}.localhost`;
        expect(await servedWithin(edge.urls.edge!, host, "/", "<h1>survived</h1>", 1_000)).toBeLessThan(
          1_000,
        );
        for (const [path, bytes] of Object.entries(files)) {
          const served = await edgeGet(edge.urls.edge!, host, path === "index.html" ? "/" : `/${path}`);
          expect(served.body.equals(bytes), path).toBe(true);
        }
      }
      // API 1 comes back on its port, behind the same balancer: the other tests, in any order,
      // find two API processes again.
      const port = new URL(apis[0]!.urls.api!).port;
      apis[0] = await layout.start("api", { ...layout.apiEnv, PORT: port });
      expect(apis[0].urls.api).toBe(`http://127.0.0.1:${port}`);
    });
  },
);

/** Requests the processes of `role` answered so far, off their /metrics. */
async function requestCount(processes: Process[], role: string): Promise<number> {
  let total = 0;
  for (const process of processes) {
    const text = await (await fetch(`${process.urls.ops}/metrics`)).text();
    total += sumOf(text, "http_requests_total", { role });
  }
  return total;
}
