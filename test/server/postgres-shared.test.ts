import pg from "pg";
import { afterEach, expect, it } from "vitest";
import { PostgresLocks } from "../../src/store/index.js";
import { createTestProject, hex64, identity, manifestOf } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;

await describePostgres("what two processes on one PostgreSQL share", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  /**
   * Two processes on one new schema, each with its own data directory. Started inside each test, not
   * in a hook: per-test coverage (Stryker) counts only what a test itself runs.
   */
  let schema = "";
  async function startTwo(limits: { prepareLimitPerProject?: number } = {}): Promise<[Server, Server]> {
    const { url, schema: fresh } = testPostgres();
    schema = fresh;
    const settings = { databaseUrl: url, databaseSchema: schema, createLimitPerAddress: 1, ...limits };
    servers.push(await startTestServer(settings), await startTestServer(settings));
    return [servers[0]!, servers[1]!];
  }

  it("startProcess: the project locks are PostgreSQL's advisory locks, which every process sees", async () => {
    for (const server of await startTwo()) expect(server.services.locks).toBeInstanceOf(PostgresLocks);
  });

  it("POST /projects: the create limit per address counts the projects made through either API", async () => {
    const [first, second] = await startTwo();
    const body = (label: string) => ({
      projectHash: hex64(`${label}-hash`),
      anonFingerprint: hex64(`${label}-fp`),
    });
    expect((await api(first.urls.api, "POST", "/projects", { body: body("first") })).status).toBe(201);
    const refused = await api(second.urls.api, "POST", "/projects", { body: body("second") });
    expect(refused.status).toBe(429);
  });

  it("POST /projects: the shared create limits count under their own scopes, per address and per fingerprint", async () => {
    const [first] = await startTwo();
    const body = { projectHash: hex64("scoped-hash"), anonFingerprint: hex64("scoped-fp") };
    expect((await api(first.urls.api, "POST", "/projects", { body })).status).toBe(201);
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT scope, count FROM ${schema}.rate_limit_windows ORDER BY scope`,
      );
      expect(rows).toEqual([
        { scope: "create-per-address", count: 1 },
        { scope: "create-per-fingerprint", count: 1 },
      ]);
    } finally {
      await client.end();
    }
  });

  it("POST /projects/{slug}/prepare: the prepare limit per project counts the prepares through either API", async () => {
    const [first, second] = await startTwo({ prepareLimitPerProject: 1 });
    const project = await createTestProject(first.urls.api, "limited");
    const prepare = async (apiUrl: string) => {
      const { manifest } = await manifestOf(project.slug, { "/index.html": "hello" });
      return api(apiUrl, "POST", `/projects/${project.slug}/prepare`, {
        token: project.token,
        body: { ...identity(project), manifest },
      });
    };
    expect((await prepare(first.urls.api)).status).toBe(200);
    const refused = await prepare(second.urls.api);
    expect([refused.status, refused.body.error?.code]).toEqual([429, "RATE_LIMITED"]);
  });
});
