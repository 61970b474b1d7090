import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challengeRecord, sweepExpired } from "../../src/core/operations/index.js";
import {
  assignDomain,
  createTestProject,
  deployFiles,
  identity,
  type TestProject,
} from "../support/deploy-flow.js";
import { startSilentDns, startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { api, edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { ignoringContest, snapshotStore } from "../support/store-snapshot.js";

const DAY = 86_400;

// Ownership of external hostnames by DNS (contract §8), against a real DNS server on loopback.
describe("domain proof by DNS", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({ dnsResolver: dns.address, domainPendingDays: 7 });
    server.clock.freeze();
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  async function deployed(label: string, content = `${label} site`): Promise<TestProject> {
    const p = await createTestProject(server.urls.api, `proof-${label}`);
    await deployFiles(server.urls.api, p, { "/index.html": content });
    return p;
  }
  const assign = (domain: string, p: TestProject) => assignDomain(server.urls.api, p, domain);
  const check = (p: TestProject) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/domains/check`, { token: p.token, body: identity(p) });

  it("POST domains: without DNS an external hostname is pending, with the CNAME and TXT records to create", async () => {
    const p = await deployed("pending");
    const res = await assign("pending.example.com", p);
    expect(res.status).toBe(200);
    const txt = challengeRecord(p.slug, "pending.example.com");
    expect(res.body.domain).toEqual({
      hostname: "pending.example.com",
      cnameTarget: "edge.localhost",
      status: "pending",
      records: [
        { type: "CNAME", name: "pending.example.com", value: "edge.localhost" },
        { type: "TXT", name: "_deploy-challenge.pending.example.com", value: txt.value },
      ],
      checkedAt: new Date(server.clock.now()).toISOString(),
      message: expect.stringContaining("neither a CNAME"),
      pendingUntil: new Date(server.clock.now() + 7 * DAY * 1000).toISOString(),
    });
    expect(txt.value).toMatch(/^deploy-challenge=[0-9a-f]{32}$/);
    expect(res.body.project.customHostnameStatus).toBe("pending");
    // The generated hostname serves and names no canonical address while DNS is unproven.
    const generated = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(generated.body.toString()).toBe("pending site");
    expect(generated.headers.link).toBeUndefined();
  });

  it("POST domains/check: pending becomes active once DNS shows the CNAME; the generated hostname then names it canonical", async () => {
    const p = await deployed("bycname");
    expect((await assign("bycname.example.com", p)).body.domain.status).toBe("pending");
    expect((await check(p)).body.domain.status).toBe("pending");
    // Through a chain: the name points at a CNAME that points at the target.
    dns.setCname("bycname.example.com", "alias.example.net");
    dns.setCname("alias.example.net", "edge.localhost");
    const res = await check(p);
    expect(res.status).toBe(200);
    expect(res.body.domain.status).toBe("active");
    expect(res.body.domain.message).toBe("DNS shows bycname.example.com as a CNAME for edge.localhost");
    expect(res.body.domain.pendingUntil).toBeNull();
    expect(res.body.project.customHostnameStatus).toBe("active");
    const generated = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(generated.headers.link).toMatch(/^<http:\/\/bycname\.example\.com:\d+\/>; rel="canonical"$/);
  });

  it("POST domains/check: pending becomes active by the TXT record _deploy-challenge.<hostname>, and only with this project's value", async () => {
    const p = await deployed("bytxt");
    const q = await deployed("bytxt-other");
    await assign("bytxt.example.com", p);
    dns.setTxt("_deploy-challenge.bytxt.example.com", [challengeRecord(q.slug, "bytxt.example.com").value]);
    expect((await check(p)).body.domain.status).toBe("pending");
    dns.setTxt("_deploy-challenge.bytxt.example.com", [
      "v=spf1 -all",
      challengeRecord(p.slug, "bytxt.example.com").value,
    ]);
    const res = await check(p);
    expect(res.body.domain.status).toBe("active");
    expect(res.body.domain.message).toBe("DNS shows the TXT record _deploy-challenge.bytxt.example.com");
  });

  it("POST domains: 409 for a name another project claimed, naming the TXT record; with it, the claim is taken over and the earlier one dropped", async () => {
    const squatter = await deployed("squatter", "squatter site");
    const owner = await deployed("owner", "owner site");
    expect((await assign("shop.example.org", squatter)).body.domain.status).toBe("pending");
    const before = snapshotStore(server.dataDir);
    const refused = await assign("shop.example.org", owner);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("DOMAIN_TAKEN");
    const txt = challengeRecord(owner.slug, "shop.example.org");
    expect(refused.body.error.txtRecord).toEqual(txt);
    expect(refused.body.error.message).toContain(`${txt.name} with the value ${txt.value}`);
    // Nothing changed but the squatter's claim, now contested (only a TXT record activates it).
    expect(ignoringContest(snapshotStore(server.dataDir))).toEqual(ignoringContest(before));
    expect((await server.services.store.getProject(squatter.slug))?.domain?.contestedAt).toBeDefined();

    dns.setTxt(txt.name, [txt.value]);
    const taken = await assign("shop.example.org", owner);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.domain.status).toBe("active");
    expect((await edgeGet(server.urls.edge, "shop.example.org", "/")).body.toString()).toBe("owner site");
    // The squatter's claim is gone: nothing to check, its generated hostname names nothing.
    const gone = await check(squatter);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("DOMAIN_NOT_ASSIGNED");
    const generated = await edgeGet(server.urls.edge, `${squatter.slug}.localhost`, "/");
    expect(generated.body.toString()).toBe("squatter site");
    expect(generated.headers.link).toBeUndefined();
  });

  it("POST domains: TXT proof claims a name another project gave up before its quarantine ends", async () => {
    const first = await deployed("quarantine-a");
    const second = await deployed("quarantine-b");
    // Proven by its CNAME, so quarantined once given up (an unproven claim is not).
    dns.setCname("moved.example.org", "edge.localhost");
    expect((await assign("moved.example.org", first)).body.domain.status).toBe("active");
    await api(server.urls.api, "DELETE", `/projects/${first.slug}/domains`, {
      token: first.token,
      body: identity(first),
    });
    expect((await assign("moved.example.org", second)).status).toBe(409);
    const txt = challengeRecord(second.slug, "moved.example.org");
    dns.setTxt(txt.name, [txt.value]);
    const res = await assign("moved.example.org", second);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.domain.status).toBe("active");
  });

  it("sweep: asks DNS about pending names, activating the proven ones; a claim pending past DOMAIN_PENDING_DAYS lapses and frees the name", async () => {
    const proven = await deployed("sweep-proven");
    const idle = await deployed("sweep-idle");
    const later = await deployed("sweep-later");
    await assign("proven.example.com", proven);
    await assign("idle.example.com", idle);
    dns.setCname("proven.example.com", "edge.localhost");
    server.clock.advance(server.config.domainCheckIntervalSeconds + 1);
    const first = await sweepExpired(server.services);
    expect(first.domainsActivated).toBeGreaterThanOrEqual(1);
    expect((await check(proven)).body.domain.status).toBe("active");
    expect((await check(idle)).body.domain.status).toBe("pending");

    server.clock.advance(7 * DAY + 1);
    const second = await sweepExpired(server.services);
    expect(second.domainsLapsed).toBeGreaterThanOrEqual(1);
    expect((await check(idle)).body.error.code).toBe("DOMAIN_NOT_ASSIGNED");
    expect((await edgeGet(server.urls.edge, "idle.example.com", "/")).status).toBe(404);
    expect((await check(proven)).body.domain.status).toBe("active");
    // Never proven, so never quarantined: anyone may claim it now.
    expect((await assign("idle.example.com", later)).status).toBe(200);
  });

  it("POST domains: a vanity name under SITES_DOMAIN is active at once, without asking DNS", async () => {
    const p = await deployed("vanity");
    const asked = dns.questions;
    const res = await assign("proof-vanity-name.localhost", p);
    expect(res.body.domain).toMatchObject({
      status: "active",
      records: [],
      message: null,
      pendingUntil: null,
    });
    expect(res.body.project.customHostnameStatus).toBe("active");
    expect(dns.questions).toBe(asked);
  });

  it("POST domains/check: 404 DOMAIN_NOT_ASSIGNED for a project without a custom domain", async () => {
    const p = await deployed("none");
    const res = await check(p);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("DOMAIN_NOT_ASSIGNED");
  });
});

describe("domain proof when DNS fails", () => {
  it("POST domains: a resolver that never answers leaves the domain pending with a message, no 5xx", async () => {
    const silent = await startSilentDns();
    const server = await startTestServer({ dnsResolver: silent.address, dnsTimeoutMs: 300 });
    try {
      const p = await createTestProject(server.urls.api, "proof-timeout");
      await deployFiles(server.urls.api, p, { "/index.html": "x" });
      const res = await assignDomain(server.urls.api, p, "slow.example.com");
      expect(res.status).toBe(200);
      expect(res.body.domain.status).toBe("pending");
      expect(res.body.domain.message).toBe(
        "DNS lookup failed: the resolver did not answer in time; the check runs again later",
      );
      const checked = await api(server.urls.api, "POST", `/projects/${p.slug}/domains/check`, {
        token: p.token,
        body: identity(p),
      });
      expect(checked.status).toBe(200);
      expect(checked.body.domain.status).toBe("pending");
    } finally {
      await server.stop();
      await silent.close();
    }
  });
});
