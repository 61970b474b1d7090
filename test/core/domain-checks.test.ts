import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DnsLookup } from "../../src/core/ports/dns.js";
import type { Platform } from "../../src/core/ports/platform.js";
import { assignDomain, checkDomain, checkPendingDomains } from "../../src/core/operations/index.js";
import type { ProjectCredentials } from "../../src/core/operations/authorize.js";
import type { Services } from "../../src/core/operations/services.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { startTestServer } from "../support/server.js";
import { createCoreProject } from "../support/core-flow.js";

// Each test's own server: the sweep's counts are exact only with no other test's claims around.
describe("domain checks", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
  });
  afterAll(() => dns.close());
  async function start(): Promise<void> {
    server = await startTestServer({ dnsResolver: dns.address, domainCheckIntervalSeconds: 600 });
    server.clock.freeze();
  }
  async function stop(): Promise<void> {
    await server.stop();
  }

  const project = (label: string) => createCoreProject(server.services, label);
  const stored = async (p: ProjectCredentials) => (await server.services.store.getProject(p.projectSlug))!;

  /** The server's services with a resolver that runs `act` once, while the first CNAME question is out. */
  function actingWhileAsked(act: () => Promise<unknown>): Services {
    const real = server.services.dns;
    let acted = false;
    const lookup: DnsLookup = Object.create(real, {
      cnames: {
        value: async (hostname: string) => {
          if (!acted) {
            acted = true;
            await act();
          }
          return real.cnames(hostname);
        },
      },
    });
    return { ...server.services, dns: lookup };
  }

  it("checkDomain: an active custom domain answers as it is, without asking DNS", async () => {
    await start();
    try {
      const p = await project("active-unasked");
      dns.setCname("active-unasked.example.com", server.services.config.sites.cnameTarget);
      const assigned = await assignDomain(server.services, { ...p, domain: "active-unasked.example.com" });
      expect(assigned.domain.status).toBe("active");
      server.clock.advance(60);
      const asked = dns.questions;
      const checked = await checkDomain(server.services, p);
      expect(dns.questions).toBe(asked);
      expect(checked.domain).toEqual(assigned.domain);
    } finally {
      await stop();
    }
  });

  it("checkDomain: a name changed while DNS was asked about the old one is left as it is: nothing recorded, the new one still pending", async () => {
    await start();
    try {
      const p = await project("changed-while-asked");
      await assignDomain(server.services, { ...p, domain: "old-name.example.com" });
      dns.setCname("old-name.example.com", server.services.config.sites.cnameTarget);
      const services = actingWhileAsked(() =>
        assignDomain(server.services, { ...p, domain: "new-name.example.com" }),
      );
      server.clock.advance(60);
      const checked = await checkDomain(services, p);
      expect(checked.project).toMatchObject({
        customHostname: "new-name.example.com",
        customHostnameStatus: "pending",
      });
      const after = await stored(p);
      expect(after.customHostname).toBe("new-name.example.com");
      expect(after.domain?.status).toBe("pending");
    } finally {
      await stop();
    }
  });

  it("checkDomain: a name activated while DNS was asked (and showed nothing) stays active", async () => {
    await start();
    try {
      const p = await project("activated-while-asked");
      await assignDomain(server.services, { ...p, domain: "activated.example.com" });
      const services = actingWhileAsked(() =>
        server.services.store.recordDomainCheck(p.projectSlug, "activated.example.com", {
          status: "active",
          checkedAt: new Date(server.clock.now()).toISOString(),
          message: "proven by another check",
        }),
      );
      server.clock.advance(60);
      const checked = await checkDomain(services, p);
      expect(checked.domain).toMatchObject({ status: "active", message: "proven by another check" });
      expect((await stored(p)).domain?.status).toBe("active");
    } finally {
      await stop();
    }
  });

  it("checkDomain: a check DNS does not prove leaves the platform alone: with the platform down it is still recorded", async () => {
    await start();
    try {
      const p = await project("unproven-platform-down");
      await assignDomain(server.services, { ...p, domain: "unproven.example.com" });
      const platform: Platform = Object.create(server.platform, {
        updateSite: {
          value: async () => {
            throw new Error("platform database is gone");
          },
        },
      });
      server.clock.advance(60);
      const checked = await checkDomain({ ...server.services, platform }, p);
      const now = new Date(server.clock.now()).toISOString();
      expect(checked.domain).toMatchObject({ status: "pending", checkedAt: now });
      expect((await stored(p)).domain).toMatchObject({ status: "pending", checkedAt: now });
    } finally {
      await stop();
    }
  });

  it("checkPendingDomains: a name checked less than DOMAIN_CHECK_INTERVAL_SECONDS ago is not asked again", async () => {
    await start();
    try {
      const p = await project("interval");
      await assignDomain(server.services, { ...p, domain: "interval.example.com" });
      server.clock.advance(599);
      expect((await checkPendingDomains(server.services)).domainsChecked).toBe(0);
      server.clock.advance(2);
      expect((await checkPendingDomains(server.services)).domainsChecked).toBe(1);
      expect((await checkPendingDomains(server.services)).domainsChecked).toBe(0);
    } finally {
      await stop();
    }
  });
});
