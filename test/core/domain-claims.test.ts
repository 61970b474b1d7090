import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DomainNotAssignedError, DomainTakenError, InvalidDomainError } from "../../src/core/errors.js";
import {
  assignDomain,
  challengeRecord,
  checkDomain,
  checkPendingDomains,
  resetDomain,
} from "../../src/core/operations/index.js";
import type { ProjectCredentials } from "../../src/core/operations/authorize.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { startTestServer } from "../support/server.js";
import { createCoreProject, rejection } from "../support/core-flow.js";

const DAY = 86_400;

describe("domain claims", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({ dnsResolver: dns.address, domainPendingDays: 3 });
    server.clock.freeze();
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  const project = (label: string) => createCoreProject(server.services, label);
  const stored = async (p: ProjectCredentials) => (await server.services.store.getProject(p.projectSlug))!;

  it("assignDomain: the project's own generated hostname drops its custom one, active with no records", async () => {
    const p = await project("own-generated");
    await assignDomain(server.services, { ...p, domain: "own-generated-vanity.localhost" });
    const generated = (await stored(p)).generatedHostname;
    const result = await assignDomain(server.services, { ...p, domain: generated });
    expect(result.domain).toMatchObject({ hostname: generated, status: "active", records: [] });
    expect(result.project.customHostname).toBeNull();
    expect(await stored(p)).toMatchObject({ customHostname: null, domain: null });
  });

  it("assignDomain: the same pending name again keeps its claim and its pending period, and asks DNS now", async () => {
    const p = await project("same-again");
    const first = await assignDomain(server.services, { ...p, domain: "same-again.example.com" });
    expect(first.domain.status).toBe("pending");
    server.clock.advance(3600);
    const asked = dns.questions;
    const again = await assignDomain(server.services, { ...p, domain: "same-again.example.com" });
    expect(dns.questions).toBeGreaterThan(asked);
    expect(again.domain.status).toBe("pending");
    expect(again.domain.pendingUntil).toBe(first.domain.pendingUntil);
    expect(again.domain.checkedAt).toBe(new Date(server.clock.now()).toISOString());
    expect((await stored(p)).domain?.claimedAt).toBe(first.domain.checkedAt);
  });

  it("assignDomain: another project's pending claim holds until DOMAIN_PENDING_DAYS, then yields without proof", async () => {
    const holder = await project("lapsing-holder");
    const claimant = await project("lapsing-claimant");
    await assignDomain(server.services, { ...holder, domain: "lapsing.example.com" });
    server.clock.advance(3 * DAY - 1);
    const early = await rejection(
      assignDomain(server.services, { ...claimant, domain: "lapsing.example.com" }),
    );
    expect(early.type).toBe(DomainTakenError.name);
    expect(early.message).toMatch(
      /^domain "lapsing\.example\.com" is held by another project; if it is yours/,
    );
    server.clock.advance(1);
    const taken = await assignDomain(server.services, { ...claimant, domain: "lapsing.example.com" });
    expect(taken.project.customHostname).toBe("lapsing.example.com");
    expect((await stored(holder)).customHostname).toBeNull();
  });

  it("checkDomain: a claim that lapsed is 404 DOMAIN_NOT_ASSIGNED saying within how many days DNS had to prove it", async () => {
    const p = await project("lapsed-check");
    await assignDomain(server.services, { ...p, domain: "lapsed-check.example.com" });
    server.clock.advance(3 * DAY);
    expect(await rejection(checkDomain(server.services, p))).toEqual({
      type: DomainNotAssignedError.name,
      message:
        'the claim on "lapsed-check.example.com" lapsed: DNS did not prove it within 3 days; assign it again',
    });
    expect(await stored(p)).toMatchObject({ customHostname: null, domain: null });
    expect(await rejection(checkDomain(server.services, p))).toEqual({
      type: DomainNotAssignedError.name,
      message: `project ${p.projectSlug} has no custom domain; assign one first`,
    });
  });

  it("assignDomain: a vanity name is active at once and never asked of DNS: no checkedAt, no message", async () => {
    const p = await project("vanity-unchecked");
    const asked = dns.questions;
    const result = await assignDomain(server.services, { ...p, domain: "vanity-unchecked.localhost" });
    expect(result.domain).toMatchObject({
      status: "active",
      checkedAt: null,
      message: null,
      pendingUntil: null,
    });
    expect(dns.questions).toBe(asked);
  });

  it("assignDomain: another project's generated hostname is INVALID_DOMAIN saying it is reserved", async () => {
    const p = await project("generated-of-other-p");
    const q = await project("generated-of-other-q");
    const theirs = (await stored(q)).generatedHostname;
    expect(await rejection(assignDomain(server.services, { ...p, domain: theirs }))).toEqual({
      type: InvalidDomainError.name,
      message: `domain "${theirs}" is reserved: it is another project's generated hostname`,
    });
  });

  it("assignDomain: a name in another project's quarantine is DOMAIN_TAKEN saying from when, and which TXT record proves it", async () => {
    const p = await project("quarantined-p");
    const q = await project("quarantined-q");
    // Proven (a CNAME), so withheld once given up: an unproven claim is not (test/api/domains.test.ts).
    dns.setCname("quarantined.example.com", "edge.localhost");
    await assignDomain(server.services, { ...q, domain: "quarantined.example.com" });
    await resetDomain(server.services, q);
    const release = await server.services.store.getHostnameRelease("quarantined.example.com");
    const txt = challengeRecord(p.projectSlug, "quarantined.example.com");
    expect(
      await rejection(assignDomain(server.services, { ...p, domain: "quarantined.example.com" })),
    ).toEqual({
      type: DomainTakenError.name,
      message:
        `domain "quarantined.example.com" was released by another project and can be claimed from ${release!.withheldUntil!}` +
        `; if it is yours, prove it: create a TXT record ${txt.name} with the value ${txt.value}, then assign it again`,
    });
  });

  it("checkPendingDomains: counts exactly the names it checked, activated and dropped", async () => {
    // Claims from earlier tests lapse first, so that this sweep sees only its own three.
    server.clock.advance(3 * DAY);
    await checkPendingDomains(server.services);
    const proven = await project("count-proven");
    const idle = await project("count-idle");
    const lapsing = await project("count-lapsing");
    await assignDomain(server.services, { ...lapsing, domain: "count-lapsing.example.com" });
    server.clock.advance(3 * DAY - 60);
    await assignDomain(server.services, { ...proven, domain: "count-proven.example.com" });
    await assignDomain(server.services, { ...idle, domain: "count-idle.example.com" });
    dns.setCname("count-proven.example.com", server.services.config.sites.cnameTarget);
    server.clock.advance(server.services.config.domainCheckIntervalSeconds + 60);
    expect(await checkPendingDomains(server.services)).toEqual({
      domainsChecked: 3,
      domainsActivated: 1,
      domainsLapsed: 1,
    });
    expect((await stored(proven)).domain?.status).toBe("active");
    expect((await stored(idle)).domain?.status).toBe("pending");
    expect((await stored(lapsing)).customHostname).toBeNull();
  });
});
