import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UploadPlatformError } from "../../src/core/errors.js";
import { CloudflarePlatform } from "../../src/platform/cloudflare/cloudflare-platform.js";
import { CF, cloudflareFixture } from "../support/cloudflare-api/cloudflare-fixture.js";
import { tokenCheckRateLimited } from "../support/cloudflare-api/faults.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";

const NOW = Date.parse("2030-01-01T00:00:00Z");

const SLUG = "amber-otter-a1b2c";
const HOST = `${SLUG}.sites.test`;
const CUSTOM = "www.example.com";

describe("Cloudflare platform: faults", () => {
  let f: Awaited<ReturnType<typeof cloudflareFixture>>;
  beforeEach(async () => {
    f = await cloudflareFixture();
  });
  afterEach(async () => {
    await f.api.close();
  });

  const productionScript = () =>
    JSON.parse(f.api.state.kvNamespace(CF.kvNamespaceId).get(HOST) ?? "{}").script;

  it("openUploadSession: a 429 is retried after the Retry-After Cloudflare sent", async () => {
    f.api.faults.add({
      method: "POST",
      path: /assets-upload-session$/,
      status: 429,
      code: 10429,
      message: "rate limited",
      retryAfter: 3,
    });
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "a" });
    expect(f.waits).toEqual([3000]);
    expect(f.api.faults.hits).toHaveLength(1);
    expect(productionScript()).toMatch(new RegExp(`^${SLUG}--`));
  });

  it("publishRevision: a 500 that lasts is UPLOAD_PLATFORM_ERROR with Cloudflare's code, after backoff within the budget; production stays", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    const before = productionScript();
    f.api.faults.add({
      method: "PUT",
      path: /\/scripts\/[^/]+$/,
      status: 500,
      code: 10013,
      message: "internal",
      times: Infinity,
    });
    const failed = f.deploy(SLUG, "rev0000002", { "/a.txt": "two" });
    await expect(failed).rejects.toBeInstanceOf(UploadPlatformError);
    await expect(failed).rejects.toThrow(/HTTP 500, code 10013/);
    // Growing waits, their sum within the budget.
    expect(f.waits.length).toBeGreaterThan(1);
    expect(f.waits[1]!).toBeGreaterThan(f.waits[0]!);
    expect(f.waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
    expect(productionScript()).toBe(before);
  });

  it("publishRevision: a failure writing the production entry leaves production where it was", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    const before = productionScript();
    f.api.faults.add({
      method: "PUT",
      path: new RegExp(`/values/${HOST.replace(/\./g, "\\.")}$`),
      status: 503,
      code: 10001,
      message: "unavailable",
      times: Infinity,
    });
    await expect(f.deploy(SLUG, "rev0000002", { "/a.txt": "two" })).rejects.toThrow(/code 10001/);
    expect(productionScript()).toBe(before);
  });

  it("check: a refused token is an error an operator can act on, without the token in it", async () => {
    f.api.faults.add({
      method: "GET",
      path: /\/user\/tokens\/verify$/,
      status: 403,
      code: 9109,
      message: "Unauthorized to access requested resource",
    });
    const refused = f.platform.check();
    await expect(refused).rejects.toThrow(
      /Cloudflare refused the API token .*HTTP 403, code 9109.*CLOUDFLARE_API_TOKEN/,
    );
    await expect(f.platform.check()).resolves.toBeUndefined();
    f.api.faults.add({
      method: "POST",
      path: /assets-upload-session$/,
      status: 403,
      code: 10000,
      message: "Authentication error",
    });
    const error = await f.platform
      .openUploadSession({ projectSlug: SLUG, entries: [], expiresAt: new Date(f.clock.now + 1000) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadPlatformError);
    expect((error as Error).message).toContain("CLOUDFLARE_API_TOKEN");
    expect((error as Error).message).not.toContain(CF.apiToken);
  });
});

/** A call that keeps failing names, in the error, the step it was: which call, on what. */
describe("Cloudflare platform: the failed step in the error", () => {
  let f: Awaited<ReturnType<typeof cloudflareFixture>>;
  beforeEach(async () => {
    f = await cloudflareFixture();
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    await f.platform.updateSite(SLUG, {
      hostnames: [HOST, CUSTOM],
      expiresAt: new Date(f.clock.now + 86_400_000),
    });
  });
  afterEach(async () => {
    await f.api.close();
  });

  const cases: [string, string, RegExp, () => Promise<unknown>][] = [
    ["reading KV", "GET", /\/values\/project%3A/, () => f.platform.promoteRevision(SLUG, "rev0000001")],
    ["writing KV", "PUT", /\/values\/project%3A/, () => f.platform.promoteRevision(SLUG, "rev0000001")],
    ["deleting KV", "DELETE", /\/values\//, () => f.platform.unpublishProject(SLUG)],
    ["listing KV", "GET", /\/keys$/, () => f.platform.sweep(new Date(f.clock.now))],
    ["finding custom hostname", "GET", /\/custom_hostnames$/, () => f.platform.customHostnameStatus(CUSTOM)],
    [
      "adding custom hostname",
      "POST",
      /\/custom_hostnames$/,
      () =>
        f.platform.updateSite(SLUG, {
          hostnames: [HOST, "b.example.com"],
          expiresAt: new Date(f.clock.now + 1),
        }),
    ],
    [
      "deleting custom hostname",
      "DELETE",
      /\/custom_hostnames\//,
      () => f.platform.updateSite(SLUG, { hostnames: [HOST], expiresAt: new Date(f.clock.now + 1) }),
    ],
    [
      "opening an assets upload session",
      "POST",
      /assets-upload-session$/,
      () =>
        f.platform.openUploadSession({
          projectSlug: SLUG,
          entries: [],
          expiresAt: new Date(f.clock.now + 1),
        }),
    ],
    ["uploading script", "PUT", /\/scripts\/[^/]+$/, () => f.deploy(SLUG, "rev0000002", { "/a.txt": "two" })],
    ["deleting script", "DELETE", /\/scripts\/[^/]+$/, () => f.platform.unpublishProject(SLUG)],
    ["verifying the API token", "GET", /\/user\/tokens\/verify$/, () => f.platform.check()],
  ];
  const expected: Record<string, string> = {
    "reading KV": `reading KV project:${SLUG}`,
    "writing KV": `writing KV project:${SLUG}`,
    "deleting KV": `deleting KV ${HOST}`,
    "listing KV": "listing KV session:*",
    "finding custom hostname": `finding custom hostname ${CUSTOM}`,
    "adding custom hostname": "adding custom hostname b.example.com",
    "deleting custom hostname": `deleting custom hostname ${CUSTOM}`,
    "opening an assets upload session": "opening an assets upload session",
    "uploading script": `uploading script ${SLUG}--`,
    "deleting script": `deleting script ${SLUG}--`,
    "verifying the API token": "verifying the API token",
  };

  it.each(cases)(
    "%s: a lasting 503 is UPLOAD_PLATFORM_ERROR naming the step",
    async (step, method, path, run) => {
      f.api.faults.add({ method, path, status: 503, code: 10001, message: "unavailable", times: Infinity });
      const error = await run().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UploadPlatformError);
      // A script's name ends in its session id, which the test does not know: the rest is exact.
      expect((error as Error).message.replace(/--[0-9a-f]{16} /, "-- ")).toBe(
        `Cloudflare failed on ${expected[step]!} (HTTP 503, code 10001: unavailable); try again later`,
      );
    },
  );

  it("reading KV: a refusal other than not found is thrown, not read as no record", async () => {
    f.api.faults.add({
      method: "GET",
      path: /\/values\/project%3A/,
      status: 400,
      code: 10021,
      message: "bad key",
    });
    await expect(f.platform.promoteRevision(SLUG, "rev0000001")).rejects.toThrow(
      "HTTP 400, code 10021: bad key",
    );
  });
});

/** The platform's own retry defaults: a 20-second budget, and waits on real timers. */
describe("Cloudflare platform: retry defaults", () => {
  let api: CloudflareApi;
  beforeEach(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => NOW });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await api.close();
  });

  const verifyFails = (retryAfter: number, times = 1) =>
    api.faults.add(tokenCheckRateLimited(retryAfter, times));

  it("check: without a budget set, waits add up to 20 seconds at most", async () => {
    const waits: number[] = [];
    const platform = new CloudflarePlatform({
      ...CF,
      apiBaseUrl: api.url,
      sitesDomain: "sites.test",
      now: () => NOW,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    verifyFails(10, Infinity);
    await expect(platform.check()).rejects.toBeInstanceOf(UploadPlatformError);
    expect(waits).toEqual([10_000, 10_000]);
  });

  it("check: without a sleep given, the retry waits Retry-After on the timers before asking again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // The delays asked of the (fake) setTimeout, recorded by a wrapper put back in `finally`: a
    // vi.spyOn here would be restored by any later restoreAllMocks to the fake it wrapped, and in
    // a worker shared between files that stalls every timer after it.
    const fake = globalThis.setTimeout;
    const delays: unknown[] = [];
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      delays.push(args[1]);
      return fake(...args);
    }) as typeof setTimeout;
    try {
      const platform = new CloudflarePlatform({
        ...CF,
        apiBaseUrl: api.url,
        sitesDomain: "sites.test",
        now: () => NOW,
      });
      verifyFails(7);
      const checked = platform.check();
      // The wait is a 7-second timer; only once it has run is Cloudflare asked again.
      await vi.waitFor(() => expect(delays).toContain(7_000));
      expect(api.calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(7_000);
      await expect(checked).resolves.toBeUndefined();
      expect(api.calls).toHaveLength(2);
    } finally {
      globalThis.setTimeout = fake;
    }
  });
});
