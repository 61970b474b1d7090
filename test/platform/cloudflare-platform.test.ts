import { afterAll } from "vitest";
import { CloudflarePlatform } from "../../src/platform/cloudflare/cloudflare-platform.js";
import { startCloudflareApi } from "../support/cloudflare-api/server.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { WorkersRuntime } from "../support/cloudflare-api/workers-runtime.js";
import { tempDir } from "../support/server.js";
import { platformContract } from "./platform-contract.js";

const dir = tempDir("deploy-cloudflare-");
afterAll(() => dir.cleanup());

let opened = 0;
platformContract(
  "cloudflare",
  async () => {
    const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
    const api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => clock.now });
    const runtime = new WorkersRuntime(api.state, {
      namespace: CF.dispatchNamespace,
      kvNamespaceId: CF.kvNamespaceId,
      dir: `${dir.path}/workers-${opened++}`,
    });
    const platform = new CloudflarePlatform({
      ...CF,
      apiBaseUrl: api.url,
      sitesDomain: "sites.test",
      now: () => clock.now,
    });
    return {
      platform,
      clock,
      async fetchSite(hostname, path) {
        const reply = await runtime.fetch(hostname, path);
        const link = reply.headers.get("link");
        return { status: reply.status, body: await reply.text(), ...(link === null ? {} : { link }) };
      },
      async close() {
        await runtime.close();
        await api.close();
      },
    };
  },
  { contentPerProject: false, reclaimsContent: false },
);
