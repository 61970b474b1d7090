import { spawn } from "node:child_process";
import { POSTGRES_PLATFORM_MIGRATIONS } from "../../src/platform/selfhost/state/migrations/platform-migrations.js";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { POSTGRES_MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { createTestProject, deployFiles, identity } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { SERVER_ENTRY } from "../support/server-process.js";
import { startTestServer, tempDir } from "../support/server.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Runs `deploy-server migrate` with `env`; resolves with its exit code and output. */
function runMigrate(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SERVER_ENTRY, "migrate"], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

await describePostgres("the server on PostgreSQL", () => {
  it("startServer with DATABASE_URL: projects and deploys are PostgreSQL's rows, and the edge serves them", async () => {
    const options = testPostgres();
    const server = await startTestServer({ databaseUrl: options.url, databaseSchema: options.schema });
    closers.push(() => server.stop());
    const p = await createTestProject(server.urls.api, "pg-server");
    await deployFiles(server.urls.api, p, { "/index.html": "<h1>on postgres</h1>" });

    const db = await openPostgres<unknown>(options);
    closers.push(() => db.destroy());
    const { rows } = await sql<{ slug: string; revision_id: string | null }>`
      SELECT slug, revision_id FROM projects`.execute(db);
    expect(rows).toEqual([{ slug: p.slug, revision_id: expect.any(String) }]);
    const site = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(site.status).toBe(200);
    expect(site.body.toString()).toBe("<h1>on postgres</h1>");
  });

  it("API on a database gone away: 503 DATABASE_UNAVAILABLE with Retry-After, /healthz says the store is down, nothing created; all served again once it is back", async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    closers.push(() => proxy.close());
    const via = new URL(TEST_DATABASE_URL);
    via.host = `127.0.0.1:${proxy.port}`;
    const { schema } = testPostgres();
    const server = await startTestServer({ databaseUrl: via.toString(), databaseSchema: schema });
    closers.push(() => server.stop());
    const before = await createTestProject(server.urls.api, "before-outage");

    await proxy.cut();
    const refused = await api(server.urls.api, "POST", "/projects", {
      body: { projectHash: "a".repeat(64), anonFingerprint: "b".repeat(64) },
    });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe("DATABASE_UNAVAILABLE");
    expect(refused.headers.get("retry-after")).toBe("5");
    const state = await api(server.urls.api, "POST", `/projects/${before.slug}/state`, {
      token: before.token,
      body: identity(before),
    });
    expect(state.status).toBe(503);

    const health = await api(server.urls.ops, "GET", "/healthz");
    expect(health.status).toBe(503);
    expect(health.body.checks.store).toBe("down");

    await proxy.restore();
    expect((await api(server.urls.ops, "GET", "/healthz")).body.checks.store).toBe("ok");
    const after = await api(server.urls.api, "POST", `/projects/${before.slug}/state`, {
      token: before.token,
      body: identity(before),
    });
    expect(after.status).toBe(200);
    const db = await openPostgres<unknown>({ ...testPostgres(), schema });
    closers.push(() => db.destroy());
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM projects`.execute(db);
    expect(rows[0]?.n).toBe(1);
  });

  it("deploy-server migrate: applies the store's and the platform's migrations once, then says both are up to date", async () => {
    const { url, schema } = testPostgres();
    const dir = tempDir();
    closers.push(async () => dir.cleanup());
    const env = { DATABASE_URL: url, DATABASE_SCHEMA: schema, DATA_DIR: dir.path };
    const first = await runMigrate(env);
    const all = Object.keys(POSTGRES_MIGRATIONS).join(", ");
    const platform = Object.keys(POSTGRES_PLATFORM_MIGRATIONS).join(", ");
    expect(first).toEqual({
      code: 0,
      output: `metadata store: applied ${all}\nplatform: applied ${platform}\n`,
    });
    const again = await runMigrate(env);
    expect(again).toEqual({ code: 0, output: "metadata store: up to date\nplatform: up to date\n" });
  });

  it("deploy-server migrate: a database that does not answer exits 1 with a message and no password", async () => {
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: 1 });
    await proxy.cut();
    const env = { DATABASE_URL: `postgres://postgres:s3cret-word@127.0.0.1:${proxy.port}/test` };
    const { code, output } = await runMigrate(env);
    expect(code).toBe(1);
    expect(output).toMatch(
      /^deploy-server: the database is unavailable \(.*ECONNREFUSED.*\); check DATABASE_URL\n$/,
    );
    expect(output).not.toContain("s3cret-word");
  });
});
