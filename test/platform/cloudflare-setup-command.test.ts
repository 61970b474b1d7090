import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cloudflareCommand } from "../../src/platform/cloudflare/setup-command.js";
import { loadConfig } from "../../src/server/config.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";

describe("deploy-server cloudflare: the command", () => {
  let api: CloudflareApi;
  let errors: string[];
  let printed: string[];
  beforeEach(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
    errors = [];
    printed = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    vi.spyOn(console, "log").mockImplementation((line: string) => void printed.push(line));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await api.close();
  });

  const onCloudflare = () =>
    loadConfig({
      PLATFORM: "cloudflare",
      CLOUDFLARE_ACCOUNT_ID: CF.accountId,
      CLOUDFLARE_API_TOKEN: CF.apiToken,
      CLOUDFLARE_DISPATCH_NAMESPACE: CF.dispatchNamespace,
      CLOUDFLARE_KV_NAMESPACE_ID: CF.kvNamespaceId,
      CLOUDFLARE_ZONE_ID: CF.zoneId,
      CLOUDFLARE_API_BASE_URL: api.url,
      SITES_DOMAIN: "sites.test",
    });

  it("cloudflare: anything but `setup` alone is a usage error, exit 2, with nothing asked of Cloudflare", async () => {
    for (const args of [[], ["set-up"], ["setup", "--force"]]) {
      expect(await cloudflareCommand(args, onCloudflare())).toBe(2);
    }
    expect(errors).toEqual(Array(3).fill("usage: deploy-server cloudflare setup"));
    expect(printed).toEqual([]);
    expect(api.state.routes).toEqual([]);
  });

  it("cloudflare setup: without PLATFORM=cloudflare it says which settings it needs, exit 2", async () => {
    expect(await cloudflareCommand(["setup"], loadConfig({}))).toBe(2);
    expect(errors).toEqual([
      "deploy-server: cloudflare setup needs PLATFORM=cloudflare and the CLOUDFLARE_* settings",
    ]);
  });

  it("cloudflare setup: a token Cloudflare refuses is one line naming the step, exit 1, nothing printed as done", async () => {
    const config = onCloudflare();
    const wrong = {
      ...config,
      cloudflare: { ...config.cloudflare!, apiToken: "wrong-token-0123456789abcdef" },
    };
    expect(await cloudflareCommand(["setup"], wrong)).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^deploy-server: cloudflare setup failed: .*verifying the API token/);
    expect(printed).toEqual([]);
    expect(api.state.routes).toEqual([]);
  });
});
