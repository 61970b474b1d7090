import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignDomain, challengeRecord } from "../../src/core/operations/index.js";
import { createTestProject, deployFiles, type TestProject } from "../support/deploy-flow.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";

// A takeover holds both projects' locks, taken in slug order: each order is run, not left to
// which random slug sorts first.
describe("domain takeover", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({ dnsResolver: dns.address });
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  const credentials = (p: TestProject) => ({
    projectSlug: p.slug,
    apiToken: p.token,
    projectHash: p.projectHash,
    anonFingerprint: p.anonFingerprint,
  });

  for (const claimantSortsFirst of [true, false]) {
    it(`assignDomain: TXT proof takes an active name over (claimant's slug ${claimantSortsFirst ? "first" : "last"}); the holder's site stops naming it canonical`, async () => {
      const label = `takeover-${claimantSortsFirst ? "first" : "last"}`;
      const one = await createTestProject(server.urls.api, `${label}-1`);
      const two = await createTestProject(server.urls.api, `${label}-2`);
      const [low, high] = one.slug < two.slug ? [one, two] : [two, one];
      const [claimant, holder] = claimantSortsFirst ? [low, high] : [high, low];
      await deployFiles(server.urls.api, holder, { "/index.html": "holder site" });
      await deployFiles(server.urls.api, claimant, { "/index.html": "claimant site" });
      const name = `${label}.example.com`;
      dns.setCname(name, server.services.config.sites.cnameTarget);
      const held = await assignDomain(server.services, { ...credentials(holder), domain: name });
      expect(held.domain.status).toBe("active");
      expect((await edgeGet(server.urls.edge, `${holder.slug}.localhost`, "/")).headers.link).toContain(name);
      const txt = challengeRecord(claimant.slug, name);
      dns.setTxt(txt.name, [txt.value]);
      const taken = await assignDomain(server.services, { ...credentials(claimant), domain: name });
      expect(taken.project).toMatchObject({ customHostname: name, customHostnameStatus: "active" });
      expect((await server.services.store.getProject(holder.slug))?.customHostname).toBeNull();
      expect((await edgeGet(server.urls.edge, name, "/")).body.toString()).toBe("claimant site");
      const holderSite = await edgeGet(server.urls.edge, `${holder.slug}.localhost`, "/");
      expect(holderSite.body.toString()).toBe("holder site");
      expect(holderSite.headers.link).toBeUndefined();
    });
  }
});
