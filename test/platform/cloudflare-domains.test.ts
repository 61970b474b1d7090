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
    zone()[0]!.verification_errors = ["custom hostname does not CNAME to this zone."];
    const status = await f.platform.customHostnameStatus(CUSTOM);
    expect(status.active).toBe(false);
    expect(status.message).toMatch(/pending_validation: custom hostname does not CNAME to this zone\.$/);
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
});
