import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assignDomain,
  createTestProject,
  deployFiles,
  identity,
  resetDomain,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { ignoringContest, snapshotStore } from "../support/store-snapshot.js";

// Each test has projects of its own (p with a deploy serving "p site", q without), so each passes
// alone and in any order; the server is shared.
describe("domains", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    // A quarantine shorter than the projects' lifetime, so a test can see it end.
    server = await startTestServer({ domainQuarantineDays: 1, dnsResolver: dns.address });
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  /** Two new projects: p deployed ("p site"), q not. */
  async function projects(label: string): Promise<{ p: TestProject; q: TestProject }> {
    const p = await createTestProject(server.urls.api, `domains-${label}-p`);
    const q = await createTestProject(server.urls.api, `domains-${label}-q`);
    await deployFiles(server.urls.api, p, { "/index.html": "p site" });
    return { p, q };
  }

  const assign = (domain: unknown, project: TestProject) => assignDomain(server.urls.api, project, domain);
  const reset = (project: TestProject) => resetDomain(server.urls.api, project);

  it("POST domains: 200 with hostname and CNAME target; the edge serves it, and the generated hostname too, naming it canonical", async () => {
    const { p } = await projects("www");
    dns.setCname("www.example.com", "edge.localhost");
    const res = await assign("WWW.Example.COM", p);
    expect(res.status).toBe(200);
    expect(res.body.domain).toMatchObject({ hostname: "www.example.com", cnameTarget: "edge.localhost" });
    expect(res.body.domain.status).toBe("active");
    expect(res.body.project.customHostname).toBe("www.example.com");
    expect(res.body.project.hostname).toBe("www.example.com");
    expect(res.body.project.productionUrl).toMatch(/^http:\/\/www\.example\.com:\d+\/$/);
    const custom = await edgeGet(server.urls.edge, "www.example.com", "/");
    expect(custom.body.toString()).toBe("p site");
    expect(custom.headers.link).toBeUndefined();
    const home = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(home.status).toBe(200);
    expect(home.body.toString()).toBe("p site");
    const origin = res.body.project.productionUrl.slice(0, -1);
    expect(home.headers.link).toBe(`<${origin}/>; rel="canonical"`);
    // The query does not go along (the path does: the platform contract checks it).
    const page = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/?utm=x");
    expect(page.headers.link).toBe(`<${origin}/>; rel="canonical"`);
  });

  it("POST domains: a vanity name under the sites domain takes the place of the custom domain before it", async () => {
    const { p } = await projects("vanity");
    expect((await assign("before-vanity.example.com", p)).status).toBe(200);
    const res = await assign("my-vanity.localhost", p);
    expect(res.status).toBe(200);
    expect(res.body.project.hostname).toBe("my-vanity.localhost");
    expect((await edgeGet(server.urls.edge, "my-vanity.localhost", "/")).body.toString()).toBe("p site");
    expect((await edgeGet(server.urls.edge, "before-vanity.example.com", "/")).status).toBe(404);
    const generated = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(generated.body.toString()).toBe("p site");
    expect(generated.headers.link).toMatch(/^<http:\/\/my-vanity\.localhost:\d+\/>; rel="canonical"$/);
  });

  it("POST domains: IDN hostnames are stored as punycode", async () => {
    const { p } = await projects("idn");
    const res = await assign("bücher.example", p);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.domain.hostname).toBe("xn--bcher-kva.example");
    expect((await edgeGet(server.urls.edge, "xn--bcher-kva.example", "/")).body.toString()).toBe("p site");
  });

  it("POST domains: 409 DOMAIN_TAKEN for a hostname another project holds, nothing changed but a pending claim now contested", async () => {
    const { p, q } = await projects("taken");
    expect((await assign("taken.example.org", p)).status).toBe(200);
    const before = snapshotStore(server.dataDir);
    for (const spelling of ["taken.example.org", "TAKEN.example.org"]) {
      const res = await assign(spelling, q);
      expect(res.status, spelling).toBe(409);
      expect(res.body.error.code, spelling).toBe("DOMAIN_TAKEN");
    }
    expect(ignoringContest(snapshotStore(server.dataDir))).toEqual(ignoringContest(before));
    expect((await server.services.store.getProject(p.slug))?.domain?.contestedAt).toBeDefined();
    expect((await edgeGet(server.urls.edge, "taken.example.org", "/")).body.toString()).toBe("p site");
  });

  it("POST domains: 400 INVALID_DOMAIN for malformed and reserved names, nothing changed", async () => {
    const { p, q } = await projects("invalid");
    const bad = [
      "localhost",
      "example",
      "example.com..",
      "127.0.0.1",
      "[::1]",
      "a..b.com",
      "-a.example.com",
      "a_b.example.com",
      `${"a".repeat(64)}.example.com`,
      `${"a.".repeat(127)}com`,
      "edge.localhost",
      "x--y.example.com",
      "abcdefghij--p.localhost",
      "deep.name.localhost",
      `${q.slug}.localhost`,
      "http://example.com",
      "",
      "exa mple.com",
    ];
    const before = snapshotStore(server.dataDir);
    for (const domain of bad) {
      const res = await assign(domain, p);
      expect(res.status, domain).toBe(400);
      expect(res.body.error.code, domain).toBe("INVALID_DOMAIN");
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("POST domains: 400 INVALID_DOMAIN naming the problem for a hostname with more after it, never cut off, nothing changed", async () => {
    const { p } = await projects("junk");
    const cases: [string, string][] = [
      ["junk.example.com/path", "has a path"],
      ["junk.example.com?x=1", "has a query"],
      ["junk.example.com#frag", "has a fragment"],
      ["junk.example.com\\evil", "contains a backslash"],
      ["%6Aunk.example.com", "contains a percent sign"],
      ["junk.example.com:8443", "has a port"],
      ["https://junk.example.com", "has a scheme"],
    ];
    const before = snapshotStore(server.dataDir);
    for (const [domain, problem] of cases) {
      const res = await assign(domain, p);
      expect(res.status, domain).toBe(400);
      expect(res.body.error.code, domain).toBe("INVALID_DOMAIN");
      expect(res.body.error.message, domain).toContain(problem);
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect((await edgeGet(server.urls.edge, "junk.example.com", "/")).status).toBe(404);
  });

  it("POST domains: one trailing dot is dropped, as the edge drops it from Host", async () => {
    const { p } = await projects("dot");
    const res = await assign("Dot.Example.COM.", p);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.domain.hostname).toBe("dot.example.com");
    expect((await edgeGet(server.urls.edge, "dot.example.com.", "/")).body.toString()).toBe("p site");
  });

  it("DELETE domains: 200 { project } back on the generated hostname, which serves again", async () => {
    const { p, q } = await projects("reset");
    dns.setCname("back.example.net", "edge.localhost");
    expect((await assign("back.example.net", p)).status).toBe(200);
    expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).headers.link).toBeDefined();
    const res = await reset(p);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["project"]);
    expect(res.body.project.customHostname).toBeNull();
    expect(res.body.project.hostname).toBe(`${p.slug}.localhost`);
    const generated = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(generated.body.toString()).toBe("p site");
    expect(generated.headers.link).toBeUndefined();
    expect((await edgeGet(server.urls.edge, "back.example.net", "/")).status).toBe(404);
    // The released name is quarantined against other projects (test/api/hostname-reuse.test.ts).
    const quarantined = await assign("back.example.net", q);
    expect(quarantined.status).toBe(409);
    expect(quarantined.body.error.code).toBe("DOMAIN_TAKEN");
    expect((await assign("back.example.net", p)).status).toBe(200);
  });

  it("POST domains: an unproven claim given up (for another name, by DELETE domains, with its project) is another project's at once", async () => {
    const { p, q } = await projects("unproven");
    const r = await createTestProject(server.urls.api, "domains-unproven-r");
    // p claims a name DNS never proves, then moves to another: nothing is quarantined.
    expect((await assign("first-unproven.example.com", p)).body.domain.status).toBe("pending");
    expect((await assign("second-unproven.example.com", p)).status).toBe(200);
    expect((await assign("first-unproven.example.com", q)).status).toBe(200);
    // Given up by DELETE domains, and with its project.
    expect((await reset(p)).status).toBe(200);
    expect((await assign("second-unproven.example.com", r)).status).toBe(200);
    const res = await api(server.urls.api, "DELETE", `/projects/${q.slug}`, {
      token: q.token,
      body: identity(q),
    });
    expect(res.status).toBe(200);
    const again = await assign("first-unproven.example.com", p);
    expect([again.status, again.body.domain?.status]).toEqual([200, "pending"]);
  });

  it("DELETE /projects/:slug: takes its hostnames off the edge at once; others may claim them after the quarantine", async () => {
    const { q } = await projects("deleted");
    const r = await createTestProject(server.urls.api, "domains-deleted-r");
    await deployFiles(server.urls.api, r, { "/index.html": "r site" });
    // Proven by its CNAME: a name DNS points here is quarantined when its project goes.
    dns.setCname("freed.example.com", "edge.localhost");
    expect((await assign("freed.example.com", r)).body.domain.status).toBe("active");
    expect((await edgeGet(server.urls.edge, "freed.example.com", "/")).status).toBe(200);
    const res = await api(server.urls.api, "DELETE", `/projects/${r.slug}`, {
      token: r.token,
      body: identity(r),
    });
    expect(res.status).toBe(200);
    expect((await edgeGet(server.urls.edge, "freed.example.com", "/")).status).toBe(404);
    expect((await edgeGet(server.urls.edge, `${r.slug}.localhost`, "/")).status).toBe(404);
    expect((await assign("freed.example.com", q)).status).toBe(409);
    server.clock.advance(86_400 + 1);
    expect((await assign("freed.example.com", q)).status).toBe(200);
  });
});
