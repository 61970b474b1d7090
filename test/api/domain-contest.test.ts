import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challengeRecord, sweepExpired } from "../../src/core/operations/index.js";
import {
  assignDomain,
  createTestProject,
  deployFiles,
  identity,
  type TestProject,
} from "../support/deploy-flow.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { api, edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";

// Issue 31, M2: a stranger's earlier claim on www.victim.test turned active when the owner created
// the documented CNAME, and got a certificate. The rule (contract §8): once another project has
// asked for a name a pending claim holds, only the TXT record activates either's claim.
describe("contested domains", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({ dnsResolver: dns.address });
    server.clock.freeze();
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  async function deployed(label: string, page: string): Promise<TestProject> {
    const p = await createTestProject(server.urls.api, `contest-${label}`);
    await deployFiles(server.urls.api, p, { "/index.html": page });
    return p;
  }
  const assign = (p: TestProject, domain: string) => assignDomain(server.urls.api, p, domain);
  const check = (p: TestProject) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/domains/check`, { token: p.token, body: identity(p) });
  const tlsAsk = async (domain: string) =>
    (await fetch(`${server.urls.api}/tls/ask?domain=${encodeURIComponent(domain)}`)).status;
  const sweepNow = async () => {
    server.clock.advance(server.config.domainCheckIntervalSeconds + 1);
    await sweepExpired(server.services);
  };

  it("POST domains: a stranger's earlier claim never turns active by the owner's CNAME nor gets a certificate; the owner's TXT record takes the name", async () => {
    const stranger = await deployed("stranger", "stranger site");
    const owner = await deployed("owner", "owner site");
    const name = "www.victim.test";
    // The stranger claims first; nothing in DNS points the name anywhere yet.
    expect((await assign(stranger, name)).body.domain.status).toBe("pending");
    // The owner asks for it later: refused, told which TXT record proves it is theirs.
    const refused = await assign(owner, name);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("DOMAIN_TAKEN");
    const txt = challengeRecord(owner.slug, name);
    expect(refused.body.error.txtRecord).toEqual(txt);

    // The owner creates the documented CNAME. The sweep, the stranger's check and the stranger
    // assigning it again all ask DNS: the claim stays pending, and no certificate is issued.
    dns.setCname(name, "edge.localhost");
    await sweepNow();
    const checked = await check(stranger);
    expect(checked.body.domain.status).toBe("pending");
    expect(checked.body.domain.message).toContain("_deploy-challenge.www.victim.test");
    expect((await assign(stranger, name)).body.domain.status).toBe("pending");
    expect(await tlsAsk(name)).toBe(404);
    const generated = await edgeGet(server.urls.edge, `${stranger.slug}.localhost`, "/");
    expect(generated.headers.link).toBeUndefined();
    // The CNAME alone does not let the owner take it either (it never takes a name from a project).
    expect((await assign(owner, name)).status).toBe(409);

    // The owner creates the TXT record: the name is theirs, active, with a certificate.
    dns.setTxt(txt.name, [txt.value]);
    const taken = await assign(owner, name);
    expect(taken.status, JSON.stringify(taken.body)).toBe(200);
    expect(taken.body.domain.status).toBe("active");
    expect(await tlsAsk(name)).toBe(200);
    expect((await edgeGet(server.urls.edge, name, "/")).body.toString()).toBe("owner site");
    expect((await check(stranger)).body.error.code).toBe("DOMAIN_NOT_ASSIGNED");
  });

  it("POST domains/check: a contested claim whose holder creates its own TXT record turns active", async () => {
    const holder = await deployed("holder", "holder site");
    const other = await deployed("other", "other site");
    const name = "shop.contest.test";
    expect((await assign(holder, name)).body.domain.status).toBe("pending");
    expect((await assign(other, name)).status).toBe(409);
    dns.setCname(name, "edge.localhost");
    expect((await check(holder)).body.domain.status).toBe("pending");
    const txt = challengeRecord(holder.slug, name);
    dns.setTxt(txt.name, [txt.value]);
    expect((await check(holder)).body.domain.status).toBe("active");
    expect(await tlsAsk(name)).toBe(200);
  });

  it("POST domains/check: an uncontested claim still turns active by its CNAME alone", async () => {
    const p = await deployed("alone", "alone site");
    expect((await assign(p, "alone.contest.test")).body.domain.status).toBe("pending");
    dns.setCname("alone.contest.test", "edge.localhost");
    expect((await check(p)).body.domain.status).toBe("active");
    expect(await tlsAsk("alone.contest.test")).toBe(200);
  });
});
