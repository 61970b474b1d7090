import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepExpired } from "../../src/core/operations/index.js";
import {
  assignDomain,
  createTestProject,
  deployFiles,
  identity,
  resetDomain,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

const DAY = 86_400;

// Issue 14, item 4: a name once used must never lead to someone else's site.
describe("hostnames are never reissued", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let attacker: TestProject;
  let dns: TestDnsServer;
  let n = 0;
  beforeAll(async () => {
    // The victims' names point here by CNAME: a claim DNS never proved is not withheld at all.
    dns = await startTestDns();
    server = await startTestServer({
      dnsResolver: dns.address,
      cnameTarget: "cname.example.net",
      // Long enough that moving the clock never expires a project here.
      projectTtlSeconds: 3650 * DAY,
    });
    attacker = await createTestProject(server.urls.api, "attacker");
    await deployFiles(server.urls.api, attacker, { "/index.html": "attacker page" });
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  const victim = async () => {
    const p = await createTestProject(server.urls.api, `victim-${n++}`);
    await deployFiles(server.urls.api, p, { "/index.html": "victim page" });
    return p;
  };
  const assign = (project: TestProject, domain: string) => assignDomain(server.urls.api, project, domain);
  const reset = (project: TestProject) => resetDomain(server.urls.api, project);
  const remove = (project: TestProject) =>
    api(server.urls.api, "DELETE", `/projects/${project.slug}`, {
      token: project.token,
      body: identity(project),
    });
  const page = async (host: string) => {
    const reply = await edgeGet(server.urls.edge, host, "/");
    return `${reply.status} ${reply.status === 200 ? reply.body.toString() : ""}`.trim();
  };
  /** Claims `domain` for the attacker and expects a refusal that changed nothing. */
  const expectRefused = async (domain: string, status: number, code: string) => {
    const before = snapshotStore(server.dataDir);
    const res = await assign(attacker, domain);
    expect(res.status, `${domain}: ${JSON.stringify(res.body)}`).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(snapshotStore(server.dataDir)).toEqual(before);
    return res;
  };

  it("POST domains: a deleted project's generated hostname is never claimed by another project; its old URL stays 404", async () => {
    const b = await victim();
    const hostname = `${b.slug}.localhost`;
    expect((await remove(b)).status).toBe(200);
    expect(await page(hostname)).toBe("404");

    const res = await expectRefused(hostname, 400, "INVALID_DOMAIN");
    expect(res.body.error.message).toContain("never reissued");
    // Not after a year either: a tombstone does not expire.
    server.clock.advance(365 * DAY);
    await expectRefused(hostname, 400, "INVALID_DOMAIN");
    expect(await page(hostname)).toBe("404");
  });

  it("POST domains: a vanity name a project gave up is never another project's, and the same project takes it back", async () => {
    const b = await victim();
    expect((await assign(b, "victim-shop.localhost")).status).toBe(200);
    expect((await assign(b, "victim-shop-2.localhost")).status).toBe(200);
    await expectRefused("victim-shop.localhost", 400, "INVALID_DOMAIN");
    expect(await page("victim-shop.localhost")).toBe("404");

    expect((await assign(b, "victim-shop.localhost")).status).toBe(200);
    expect(await page("victim-shop.localhost")).toBe("200 victim page");
    // Deleting the project releases the vanity name for good too.
    expect((await remove(b)).status).toBe(200);
    await expectRefused("victim-shop.localhost", 400, "INVALID_DOMAIN");
  });

  it("POST domains: a deleted project's custom domain is withheld from other projects for DOMAIN_QUARANTINE_DAYS (30)", async () => {
    const b = await victim();
    dns.setCname("www.victim-deleted.example", "cname.example.net");
    expect((await assign(b, "www.victim-deleted.example")).body.domain.status).toBe("active");
    expect((await remove(b)).status).toBe(200);

    const res = await expectRefused("www.victim-deleted.example", 409, "DOMAIN_TAKEN");
    expect(res.body.error.message).toContain("can be claimed from");
    expect(await page("www.victim-deleted.example")).toBe("404");
    server.clock.advance(30 * DAY - 60);
    await expectRefused("www.victim-deleted.example", 409, "DOMAIN_TAKEN");
    server.clock.advance(120);
    expect((await assign(attacker, "www.victim-deleted.example")).status).toBe(200);
    expect(await page("www.victim-deleted.example")).toBe("200 attacker page");
    expect((await reset(attacker)).status).toBe(200);
  });

  it("DELETE domains: a custom domain a project resets is withheld from others, and the same project takes it back", async () => {
    const b = await victim();
    dns.setCname("www.victim-reset.example", "cname.example.net");
    expect((await assign(b, "www.victim-reset.example")).body.domain.status).toBe("active");
    expect((await reset(b)).status).toBe(200);
    await expectRefused("www.victim-reset.example", 409, "DOMAIN_TAKEN");
    expect((await assign(b, "www.victim-reset.example")).status).toBe(200);
    expect(await page("www.victim-reset.example")).toBe("200 victim page");
  });

  it("POST domains: the service's own names are refused as vanity names (api, upload, www, admin, edge, mail, status, the CNAME target's label)", async () => {
    for (const label of ["api", "upload", "www", "admin", "edge", "mail", "status", "cname"]) {
      const res = await expectRefused(`${label}.localhost`, 400, "INVALID_DOMAIN");
      expect(res.body.error.message, label).toContain("reserved");
    }
    // The same labels elsewhere are ordinary names.
    expect((await assign(attacker, "api.attacker.example")).status).toBe(200);
    expect((await reset(attacker)).status).toBe(200);
  });
});

describe("hostnames of purged projects", () => {
  it("POST domains: a purged project's custom domain is quarantined and its generated name never reissued", async () => {
    const dns = await startTestDns();
    dns.setCname("www.victim-purged.example", "edge.localhost");
    const server = await startTestServer({
      dnsResolver: dns.address,
      projectTtlSeconds: 30 * DAY,
      projectPurgeGraceSeconds: 7 * DAY,
    });
    try {
      const b = await createTestProject(server.urls.api, "purged-victim");
      await deployFiles(server.urls.api, b, { "/index.html": "victim page" });
      const claim = await api(server.urls.api, "POST", `/projects/${b.slug}/domains`, {
        token: b.token,
        body: { ...identity(b), domain: "www.victim-purged.example" },
      });
      expect(claim.body.domain.status).toBe("active");
      // Past its expiry and the purge grace period, then swept.
      server.clock.advance(38 * DAY);
      expect((await sweepExpired(server.services)).projectsPurged).toBe(1);

      const attacker = await createTestProject(server.urls.api, "purge-attacker");
      for (const [domain, status, code] of [
        ["www.victim-purged.example", 409, "DOMAIN_TAKEN"],
        [`${b.slug}.localhost`, 400, "INVALID_DOMAIN"],
      ] as const) {
        const before = snapshotStore(server.dataDir);
        const res = await api(server.urls.api, "POST", `/projects/${attacker.slug}/domains`, {
          token: attacker.token,
          body: { ...identity(attacker), domain },
        });
        expect(res.status, domain).toBe(status);
        expect(res.body.error.code).toBe(code);
        expect(snapshotStore(server.dataDir)).toEqual(before);
      }
    } finally {
      await server.stop();
      await dns.close();
    }
  });
});
