import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CF, cloudflareFixture } from "../support/cloudflare-api/cloudflare-fixture.js";

const SLUG = "amber-otter-a1b2c";
const HOST = `${SLUG}.sites.test`;
const CUSTOM = "www.example.com";

/** Cloudflare for SaaS custom hostnames: the platform reports Cloudflare's validation of them. */
describe("Cloudflare platform: custom hostname status", () => {
  let f: Awaited<ReturnType<typeof cloudflareFixture>>;
  beforeEach(async () => {
    f = await cloudflareFixture();
    await f.deploy(SLUG, "rev0000001", { "/index.html": "home" });
    await f.platform.updateSite(SLUG, {
      hostnames: [HOST, CUSTOM],
      expiresAt: new Date(f.clock.now + 86_400_000),
    });
  });
  afterEach(async () => {
    await f.api.close();
  });

  const zone = () => [...f.api.state.zone(CF.zoneId).values()];

  it("customHostnameStatus: pending while Cloudflare validates, with its status and the certificate's", async () => {
    expect(await f.platform.customHostnameStatus(CUSTOM)).toEqual({
      active: false,
      message: `Cloudflare shows the custom hostname pending, its certificate pending_validation`,
    });
  });

  it("customHostnameStatus: active once Cloudflare has validated it", async () => {
    f.api.state.validateCustomHostname(CF.zoneId, CUSTOM);
    expect(await f.platform.customHostnameStatus(CUSTOM)).toEqual({
      active: true,
      message: `Cloudflare shows the custom hostname active, its certificate active`,
    });
  });

  it("customHostnameStatus: Cloudflare's verification errors are in the message", async () => {
    zone()[0]!.verification_errors = ["custom hostname does not CNAME to this zone.", "no TXT record."];
    const status = await f.platform.customHostnameStatus(CUSTOM);
    expect(status.active).toBe(false);
    expect(status.message).toMatch(
      /pending_validation: custom hostname does not CNAME to this zone\.; no TXT record\.$/,
    );
  });

  it("customHostnameStatus: active while Cloudflare replaces its certificate (active_redeploying)", async () => {
    f.api.state.validateCustomHostname(CF.zoneId, CUSTOM);
    (zone()[0]! as { status: string }).status = "active_redeploying";
    expect((await f.platform.customHostnameStatus(CUSTOM)).active).toBe(true);
  });

  it("customHostnameStatus: a status or certificate status Cloudflare leaves out reads as pending", async () => {
    const held = zone()[0]! as { status?: string; ssl?: object };
    delete held.status;
    delete held.ssl;
    expect(await f.platform.customHostnameStatus(CUSTOM)).toEqual({
      active: false,
      message: `Cloudflare shows the custom hostname pending, its certificate pending`,
    });
  });

  it("customHostnameStatus: a custom hostname Cloudflare does not hold is created again and reported pending", async () => {
    f.api.state.zone(CF.zoneId).clear();
    const status = await f.platform.customHostnameStatus(CUSTOM);
    expect(status).toEqual({
      active: false,
      message: `Cloudflare did not hold the custom hostname ${CUSTOM}; it was added again`,
    });
    expect(zone().map((h) => [h.hostname, h.status, h.ssl.method, h.ssl.type])).toEqual([
      [CUSTOM, "pending", "http", "dv"],
    ]);
  });

  it("updateSite: a custom hostname Cloudflare holds already (another instance, a retry) is kept as it is", async () => {
    const other = "b.example.com";
    await f.platform.updateSite(SLUG, { hostnames: [HOST], expiresAt: new Date(f.clock.now + 86_400_000) });
    f.api.state.zone(CF.zoneId).set("held", {
      id: "held",
      hostname: other,
      status: "active",
      ssl: { method: "http", type: "dv", status: "active" },
      created_at: new Date(f.clock.now).toISOString(),
    });
    await f.platform.updateSite(SLUG, {
      hostnames: [HOST, other],
      expiresAt: new Date(f.clock.now + 86_400_000),
    });
    expect(zone().map((h) => [h.id, h.hostname, h.status])).toEqual([["held", other, "active"]]);
  });

  it("updateSite: Cloudflare refusing a custom hostname (other than as a duplicate) is an error", async () => {
    f.api.faults.add({
      method: "POST",
      path: /\/custom_hostnames$/,
      status: 400,
      code: 1409,
      message: "hostname not allowed",
    });
    await expect(
      f.platform.updateSite(SLUG, {
        hostnames: [HOST, CUSTOM, "b.example.com"],
        expiresAt: new Date(f.clock.now + 86_400_000),
      }),
    ).rejects.toThrow(/HTTP 400, code 1409: hostname not allowed/);
  });

  it("updateSite: hostnames under SITES_DOMAIN, and SITES_DOMAIN itself, are never custom hostnames, added or removed", async () => {
    const ours = [`x.${HOST}`, "sites.test"];
    const from = f.api.calls.length;
    await f.platform.updateSite(SLUG, {
      hostnames: [HOST, CUSTOM, ...ours],
      expiresAt: new Date(f.clock.now + 86_400_000),
    });
    await f.platform.updateSite(SLUG, {
      hostnames: [HOST, CUSTOM],
      expiresAt: new Date(f.clock.now + 86_400_000),
    });
    expect(f.api.calls.slice(from).filter((c) => c.includes("/custom_hostnames"))).toEqual([]);
    expect(zone().map((h) => h.hostname)).toEqual([CUSTOM]);
  });

  it("updateSite: removing one custom hostname leaves the project's others, and their status, as they were", async () => {
    const other = "b.example.com";
    const expiresAt = new Date(f.clock.now + 86_400_000);
    await f.platform.updateSite(SLUG, { hostnames: [HOST, CUSTOM, other], expiresAt });
    f.api.state.validateCustomHostname(CF.zoneId, other);
    expect((await f.platform.customHostnameStatus(other)).active).toBe(true);
    await f.platform.updateSite(SLUG, { hostnames: [HOST, other], expiresAt });
    expect(zone().map((h) => h.hostname)).toEqual([other]);
  });
});
