import { AsyncLocalStorage } from "node:async_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Locks } from "../../src/core/ports/index.js";
import { assignDomain, challengeRecord } from "../../src/core/operations/index.js";
import { createTestProject, deployFiles, type TestProject } from "../support/deploy-flow.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";

/**
 * The real locks, noting for each lock taken the keys its caller already held: the order in which
 * an operation nests its locks, which decides whether two crossing takeovers can deadlock.
 */
function orderNoting(inner: Locks): { locks: Locks; nestings: string[][] } {
  const held = new AsyncLocalStorage<string[]>();
  const nestings: string[][] = [];
  const locks: Locks = {
    run: (key, work) => {
      const nesting = [...(held.getStore() ?? []), key];
      nestings.push(nesting);
      return inner.run(key, () => held.run(nesting, work));
    },
  };
  return { locks, nestings };
}

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
      const plain = orderNoting(server.services.locks);
      const held = await assignDomain(
        { ...server.services, locks: plain.locks },
        { ...credentials(holder), domain: name },
      );
      expect(held.domain.status).toBe("active");
      // A name no one holds: the project's own lock alone.
      expect(plain.nestings).toEqual([[holder.slug]]);
      expect((await edgeGet(server.urls.edge, `${holder.slug}.localhost`, "/")).headers.link).toContain(name);
      const txt = challengeRecord(claimant.slug, name);
      dns.setTxt(txt.name, [txt.value]);
      const { locks, nestings } = orderNoting(server.services.locks);
      const taken = await assignDomain(
        { ...server.services, locks },
        { ...credentials(claimant), domain: name },
      );
      // Both projects locked, the lower slug first, whichever of them claims.
      expect(nestings).toContainEqual([low.slug, high.slug]);
      expect(nestings.filter((nesting) => nesting.length > 1)).toEqual([[low.slug, high.slug]]);
      expect(taken.project).toMatchObject({ customHostname: name, customHostnameStatus: "active" });
      expect((await server.services.store.getProject(holder.slug))?.customHostname).toBeNull();
      expect((await edgeGet(server.urls.edge, name, "/")).body.toString()).toBe("claimant site");
      const holderSite = await edgeGet(server.urls.edge, `${holder.slug}.localhost`, "/");
      expect(holderSite.body.toString()).toBe("holder site");
      expect(holderSite.headers.link).toBeUndefined();
    });
  }
});
