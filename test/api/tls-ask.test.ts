import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignDomain, createTestProject, deployFiles, type TestProject } from "../support/deploy-flow.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { startTestServer } from "../support/server.js";

// Caddy's on-demand TLS asks GET /tls/ask?domain=<host> before it gets a certificate.
describe("GET /tls/ask", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({ dnsResolver: dns.address, tlsAskLimitPerAddress: 40 });
    server.clock.freeze();
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  const ask = async (domain: string | undefined) => {
    const query = domain === undefined ? "" : `?domain=${encodeURIComponent(domain)}`;
    return (await fetch(`${server.urls.api}/tls/ask${query}`)).status;
  };
  async function deployed(label: string): Promise<{ p: TestProject; revisionId: string }> {
    const p = await createTestProject(server.urls.api, `ask-${label}`);
    const result = await deployFiles(server.urls.api, p, { "/index.html": label });
    return { p, revisionId: (result.deployed as { revisionId: string }).revisionId };
  }

  it("GET /tls/ask: 200 for the generated, vanity, revision and active custom hostnames of a live project", async () => {
    const { p, revisionId } = await deployed("live");
    expect(await ask(`${p.slug}.localhost`)).toBe(200);
    expect(await ask(`${revisionId}--${p.slug}.localhost`)).toBe(200);
    dns.setCname("live.example.com", "edge.localhost");
    expect((await assignDomain(server.urls.api, p, "live.example.com")).body.domain.status).toBe("active");
    expect(await ask("live.example.com")).toBe(200);
    expect(await ask("LIVE.example.com.")).toBe(200);
    const { p: q } = await deployed("vanity");
    await assignDomain(server.urls.api, q, "ask-vanity-name.localhost");
    expect(await ask("ask-vanity-name.localhost")).toBe(200);
  });

  it("GET /tls/ask: 404 for a live revision's labels under another domain as long as SITES_DOMAIN", async () => {
    const { p, revisionId } = await deployed("shaped");
    expect(await ask(`${revisionId}--${p.slug}.localhost`)).toBe(200);
    // ".examp.com" is as long as ".localhost": cut that length off the end and the revision
    // label is left, but the name is not under SITES_DOMAIN and no project holds it.
    expect(await ask(`${revisionId}--${p.slug}.examp.com`)).toBe(404);
  });

  it("GET /tls/ask: 404 for a pending custom domain, an unknown name, a revision not kept, a project never deployed, an expired one", async () => {
    const { p } = await deployed("refused");
    await assignDomain(server.urls.api, p, "pending-ask.example.com");
    expect(await ask("pending-ask.example.com")).toBe(404);
    expect(await ask("nobody.example.com")).toBe(404);
    expect(await ask(`abcdefghij--${p.slug}.localhost`)).toBe(404);
    expect(await ask("www.example.com/path")).toBe(404);
    const fresh = await createTestProject(server.urls.api, "ask-fresh");
    expect(await ask(`${fresh.slug}.localhost`)).toBe(404);
    expect(await ask(`${p.slug}.localhost`)).toBe(200);
    server.clock.advance(server.config.projectTtlSeconds + 1);
    expect(await ask(`${p.slug}.localhost`)).toBe(404);
  });

  it("GET /tls/ask: an empty domain is 400 as a missing one; each answer is one plain line saying why", async () => {
    const text = async (query: string) => {
      const res = await fetch(`${server.urls.api}/tls/ask${query}`);
      return [res.status, await res.text()];
    };
    const { p } = await deployed("plain");
    expect(await text("?domain=")).toEqual([400, "domain query parameter missing\n"]);
    expect(await text("")).toEqual([400, "domain query parameter missing\n"]);
    expect(await text("?domain=nobody-plain.example.com")).toEqual([404, "no live site on this hostname\n"]);
    expect(await text(`?domain=${p.slug}.localhost`)).toEqual([200, "ok\n"]);
  });

  it("GET /tls/ask: 400 without a domain, 429 with Retry-After past the limit per client address", async () => {
    expect(await ask(undefined)).toBe(400);
    let status = 0;
    for (let i = 0; i < 60 && status !== 429; i++) status = await ask(`n${i}.example.com`);
    expect(status).toBe(429);
    const res = await fetch(`${server.urls.api}/tls/ask?domain=x.example.com`);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // The window ends: this file's other tests, in any order, ask afresh.
    server.clock.advance(server.config.tlsAskLimitWindowSeconds + 1);
    expect(await ask("nobody.example.com")).toBe(404);
  });
});

// Issue 31, M1: Caddy asks from one address for every visitor, so after 650 made-up names the live
// sites' own questions were refused 429. This test's requests come from 127.0.0.1, the frontend.
describe("GET /tls/ask from the frontend (TLS_ASK_TRUSTED_ADDRESSES)", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({
      tlsAskTrustedAddresses: ["127.0.0.1"],
      tlsAskLimitPerAddress: 5,
      tlsAskUnknownLimit: 20,
    });
    server.clock.freeze();
  });
  afterAll(() => server.stop());

  const ask = async (domain: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.urls.api}/tls/ask?domain=${encodeURIComponent(domain)}`, { headers });
    return { status: res.status, retryAfter: res.headers.get("retry-after") };
  };

  it("GET /tls/ask: the frontend is not limited per address; names answered no are bounded over all clients, a live name never", async () => {
    const p = await createTestProject(server.urls.api, "ask-frontend");
    await deployFiles(server.urls.api, p, { "/index.html": "live" });
    const live = `${p.slug}.localhost`;
    // Past the per-address limit of 5, the frontend's questions about a live site are answered.
    for (let i = 0; i < 12; i++) expect((await ask(live)).status, `live ${i}`).toBe(200);
    // A flood of made-up names: 20 answered no, then 429 with Retry-After.
    for (let i = 0; i < 20; i++)
      expect((await ask(`made-up-${i}.example.com`)).status, `unknown ${i}`).toBe(404);
    const refused = await ask("made-up-20.example.com");
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    // The live site's own question still gets its yes, in the same window.
    expect((await ask(live)).status).toBe(200);
    server.clock.advance(server.config.tlsAskLimitWindowSeconds);
    expect((await ask("made-up-21.example.com")).status).toBe(404);
  });

  it("GET /tls/ask: a request the frontend forwards (X-Forwarded-For) is limited per address as any client's", async () => {
    server.clock.advance(server.config.tlsAskLimitWindowSeconds);
    const forwarded = { "x-forwarded-for": "198.51.100.7" };
    for (let i = 0; i < 5; i++) expect((await ask(`fwd-${i}.example.com`, forwarded)).status).toBe(404);
    const limited = await ask("fwd-5.example.com", forwarded);
    expect(limited.status).toBe(429);
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
  });
});
