import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openCloudflarePlatform } from "../../src/platform/cloudflare/open-cloudflare.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { tokenCheckRateLimited } from "../support/cloudflare-api/faults.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";

describe("the Cloudflare platform of a process", () => {
  let api: CloudflareApi;
  beforeEach(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
  });
  afterEach(() => api.close());

  /** The platform with REQUEST_TIMEOUT_SECONDS as given, its first token check answered 429 with `retryAfter`. */
  function rateLimited(requestMs: number, retryAfterSeconds: number) {
    api.faults.add(tokenCheckRateLimited(retryAfterSeconds));
    return openCloudflarePlatform(
      { ...CF, apiBaseUrl: api.url },
      { sitesDomain: "sites.test", timeouts: { requestMs } },
      () => Date.now(),
    );
  }

  it("openCloudflarePlatform: an operation waits on Cloudflare at most half the request timeout", async () => {
    const platform = rateLimited(2_000, 2);
    await expect(platform.check()).rejects.toThrow(
      /^Cloudflare failed on verifying the API token .*try again later$/,
    );
    expect(api.calls).toEqual(["GET /client/v4/user/tokens/verify"]);
  });

  it("openCloudflarePlatform: an operation waits at most 20 s, however long the request timeout", async () => {
    const platform = rateLimited(120_000, 21);
    await expect(platform.check()).rejects.toThrow(
      /^Cloudflare failed on verifying the API token .*try again later$/,
    );
    expect(api.calls).toEqual(["GET /client/v4/user/tokens/verify"]);
  });
});
