import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, identity, type TestProject } from "../support/deploy-flow.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

// Issue 31, M4: domain changes had no limit (300 vanity names blocked for ever in 6 s, 300 claims
// making 619 DNS questions about names the attacker chose). Clients are told apart by
// X-Forwarded-For (TRUST_PROXY), as behind the repository's Caddy.
describe("domain limits", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({
      dnsResolver: dns.address,
      trustProxy: true,
      domainLimitPerProject: 3,
      domainLimitPerAddress: 5,
      domainLimitWindowSeconds: 600,
    });
    server.clock.freeze();
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  let n = 0;
  const client = () => `203.0.113.${++n}`;
  const call = (p: TestProject, from: string, method: string, path: string, extra: object = {}) =>
    api(server.urls.api, method, `/projects/${p.slug}/domains${path}`, {
      token: p.token,
      body: { ...identity(p), ...extra },
      headers: { "x-forwarded-for": from },
    });
  const assign = (p: TestProject, from: string, domain: string) => call(p, from, "POST", "", { domain });

  /** Expects 429 RATE_LIMITED with Retry-After, no DNS question asked and nothing changed. */
  async function expectLimited(request: () => ReturnType<typeof call>): Promise<void> {
    const before = snapshotStore(server.dataDir);
    const asked = dns.questions;
    const res = await request();
    expect(res.status, JSON.stringify(res.body)).toBe(429);
    expect(res.body.error.code).toBe("RATE_LIMITED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(dns.questions).toBe(asked);
    expect(snapshotStore(server.dataDir)).toEqual(before);
  }

  it("POST/DELETE domains, domains/check: past DOMAIN_LIMIT_PER_PROJECT a project's next change is 429, from any client", async () => {
    const p = await createTestProject(server.urls.api, "limit-project");
    expect((await assign(p, client(), "one.limit.example")).status).toBe(200);
    expect((await call(p, client(), "POST", "/check")).status).toBe(200);
    expect((await call(p, client(), "DELETE", "")).status).toBe(200);
    await expectLimited(() => assign(p, client(), "two.limit.example"));
    await expectLimited(() => call(p, client(), "DELETE", ""));
    // Another project of the same clients is not held back by p's count.
    const q = await createTestProject(server.urls.api, "limit-project-q");
    expect((await assign(q, client(), "limit-q-vanity.localhost")).status).toBe(200);
    server.clock.advance(600);
    expect((await assign(p, client(), "two.limit.example")).status).toBe(200);
  });

  it("POST domains: past DOMAIN_LIMIT_PER_ADDRESS one client's next change is 429 whatever the project; other clients go on", async () => {
    const from = client();
    const projects = await Promise.all(
      [0, 1, 2].map((i) => createTestProject(server.urls.api, `limit-address-${i}`)),
    );
    // Five changes over three projects (none past its own limit), then the sixth is refused.
    for (const [i, p] of [projects[0]!, projects[0]!, projects[1]!, projects[1]!, projects[2]!].entries()) {
      expect((await assign(p, from, `vanity-limit-${n}-${i}.localhost`)).status).toBe(200);
    }
    await expectLimited(() => assign(projects[2]!, from, "ext-limit.example.org"));
    expect((await assign(projects[2]!, client(), "ext-limit.example.org")).status).toBe(200);
    server.clock.advance(600);
    expect((await assign(projects[2]!, from, `vanity-limit-${n}-again.localhost`)).status).toBe(200);
  });
});
