import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresLocks } from "../../src/store/index.js";
import { hex64 } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;

await describePostgres("what two processes on one PostgreSQL share", () => {
  let servers: Server[] = [];
  beforeAll(async () => {
    const { url, schema } = testPostgres();
    const settings = { databaseUrl: url, databaseSchema: schema, createLimitPerAddress: 1 };
    servers = [await startTestServer(settings), await startTestServer(settings)];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("startProcess: the project locks are PostgreSQL's advisory locks, which every process sees", () => {
    for (const server of servers) expect(server.services.locks).toBeInstanceOf(PostgresLocks);
  });

  it("POST /projects: the create limit per address counts the projects made through either API", async () => {
    const body = (label: string) => ({
      projectHash: hex64(`${label}-hash`),
      anonFingerprint: hex64(`${label}-fp`),
    });
    expect((await api(servers[0]!.urls.api, "POST", "/projects", { body: body("first") })).status).toBe(201);
    const second = await api(servers[1]!.urls.api, "POST", "/projects", { body: body("second") });
    expect(second.status).toBe(429);
  });
});
