import { afterAll, beforeAll, expect, it } from "vitest";
import { assignDomain, createTestProject, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;

await describePostgres("two API processes on one PostgreSQL", () => {
  let servers: Server[] = [];
  beforeAll(async () => {
    const { url, schema } = testPostgres();
    // Each has its own data directory (its own platform): only the database is shared.
    const settings = { databaseUrl: url, databaseSchema: schema, createLimitPerAddress: 1_000 };
    servers = [await startTestServer(settings), await startTestServer(settings)];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("POST domains: 10 projects claiming 3 hostnames at once through both APIs give exactly one owner each", async () => {
    const projects: TestProject[] = [];
    for (let n = 0; n < 10; n++)
      projects.push(await createTestProject(servers[n % 2]!.urls.api, `claim-${n}`));
    const names = ["red.localhost", "green.localhost", "blue.localhost"];
    const answers = await Promise.all(
      projects.map((p, n) => assignDomain(servers[(n + 1) % 2]!.urls.api, p, names[n % 3])),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe("DOMAIN_TAKEN");
    }
    for (const name of names) {
      const owners = answers.filter((a) => a.status === 200 && a.body.project.customHostname === name);
      expect(owners).toHaveLength(1);
    }
  });
});

await describePostgres("the create-project limit across API processes", () => {
  let servers: Server[] = [];
  beforeAll(async () => {
    const { url, schema } = testPostgres();
    const settings = { databaseUrl: url, databaseSchema: schema, createLimitPerAddress: 3 };
    servers = [await startTestServer(settings), await startTestServer(settings)];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it("POST /projects: the limit per client address counts the creates of every API process, then 429 on each", async () => {
    const create = (server: Server, n: number) =>
      api(server.urls.api, "POST", "/projects", {
        body: { projectHash: `${n}`.padStart(64, "a"), anonFingerprint: `${n}`.padStart(64, "b") },
      });
    const [a, b] = servers as [Server, Server];
    expect((await create(a, 1)).status).toBe(201);
    expect((await create(b, 2)).status).toBe(201);
    expect((await create(a, 3)).status).toBe(201);
    for (const server of [b, a]) {
      const refused = await create(server, 4);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("RATE_LIMITED");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});
