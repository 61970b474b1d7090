import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/server/config.js";

const CLOUDFLARE = {
  PLATFORM: "cloudflare",
  CLOUDFLARE_ACCOUNT_ID: "0123456789abcdef0123456789abcdef",
  CLOUDFLARE_API_TOKEN: "test-token-0123456789abcdef",
  CLOUDFLARE_DISPATCH_NAMESPACE: "sites",
  CLOUDFLARE_KV_NAMESPACE_ID: "fedcba9876543210fedcba9876543210",
  CLOUDFLARE_ZONE_ID: "00112233445566778899aabbccddeeff",
};

describe("configuration: PLATFORM and Cloudflare's settings", () => {
  it("loadConfig: the built-in platform by default, with no Cloudflare settings asked for", () => {
    expect(loadConfig({}).cloudflare).toBeUndefined();
  });

  it("loadConfig: PLATFORM=cloudflare takes the settings, with Cloudflare's public API by default", () => {
    expect(loadConfig(CLOUDFLARE).cloudflare).toEqual({
      accountId: CLOUDFLARE.CLOUDFLARE_ACCOUNT_ID,
      apiToken: CLOUDFLARE.CLOUDFLARE_API_TOKEN,
      dispatchNamespace: "sites",
      kvNamespaceId: CLOUDFLARE.CLOUDFLARE_KV_NAMESPACE_ID,
      zoneId: CLOUDFLARE.CLOUDFLARE_ZONE_ID,
      apiBaseUrl: "https://api.cloudflare.com/client/v4",
    });
    const local = loadConfig({ ...CLOUDFLARE, CLOUDFLARE_API_BASE_URL: "http://127.0.0.1:9999/client/v4/" });
    expect(local.cloudflare?.apiBaseUrl).toBe("http://127.0.0.1:9999/client/v4");
  });

  it("loadConfig: with PLATFORM=cloudflare a process runs the api role alone, without the local upload and edge addresses", () => {
    const config = loadConfig(CLOUDFLARE);
    expect(config.roles).toEqual(["api"]);
    expect(config.uploadPublicUrl).toBeUndefined();
    expect(config.publicEdgePort).toBeUndefined();
    // Cloudflare serves the sites over HTTPS.
    expect(config.publicScheme).toBe("https");
    expect(loadConfig({}).publicScheme).toBe("http");
    expect(loadConfig({ ...CLOUDFLARE, ROLES: "api" }).roles).toEqual(["api"]);
  });

  it("loadConfig: a missing or malformed setting stops the start with one line naming it", () => {
    const cases: [Record<string, string>, string][] = [
      [
        { ...CLOUDFLARE, CLOUDFLARE_API_TOKEN: "" },
        "CLOUDFLARE_API_TOKEN: required when PLATFORM=cloudflare",
      ],
      [{ ...CLOUDFLARE, CLOUDFLARE_ZONE_ID: "" }, "CLOUDFLARE_ZONE_ID: required when PLATFORM=cloudflare"],
      [
        { ...CLOUDFLARE, CLOUDFLARE_ACCOUNT_ID: "not-hex" },
        "CLOUDFLARE_ACCOUNT_ID: must be 32 lowercase hex characters",
      ],
      [
        { ...CLOUDFLARE, CLOUDFLARE_API_BASE_URL: "ftp://x" },
        "CLOUDFLARE_API_BASE_URL: must be an http(s) URL",
      ],
      [{ PLATFORM: "aws" }, "PLATFORM:"],
      [
        { ...CLOUDFLARE, ROLES: "api,edge" },
        "ROLES: with PLATFORM=cloudflare a process runs only the api role (Cloudflare receives the uploads and serves the sites), not edge",
      ],
      [
        { ...CLOUDFLARE, ROLES: "upload" },
        "ROLES: with PLATFORM=cloudflare a process runs only the api role",
      ],
    ];
    for (const [env, message] of cases) {
      let thrown: Error | undefined;
      try {
        loadConfig(env);
      } catch (error) {
        thrown = error as Error;
      }
      expect(thrown?.message).toContain(message);
      expect(thrown?.message).not.toContain("\n");
      // The token's value never appears in the message.
      expect(thrown?.message).not.toContain(CLOUDFLARE.CLOUDFLARE_API_TOKEN);
    }
  });
});
