import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { setUpCloudflare } from "../../src/server/cloudflare-setup.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";
import { tempDir } from "../support/server.js";

const SOURCE = fileURLToPath(
  new URL("../../src/platform/cloudflare/dispatcher/dispatcher.ts", import.meta.url),
);

describe("deploy-server cloudflare setup", () => {
  let api: CloudflareApi;
  const dir = tempDir("deploy-cf-setup-");
  const dispatcher = join(dir.path, "dispatcher.js");
  afterAll(() => dir.cleanup());
  beforeEach(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
    writeFileSync(
      dispatcher,
      transformSync(readFileSync(SOURCE, "utf8"), { loader: "ts", format: "esm" }).code,
    );
  });
  afterEach(async () => {
    await api.close();
  });

  it("setup: deploys the dispatch Worker with its two bindings, on the sites' wildcard and the fallback route", async () => {
    const lines = await setUpCloudflare(
      { ...CF, apiBaseUrl: api.url },
      "sites.test",
      new URL(`file://${dispatcher}`),
    );
    expect(lines).toContain("token: active");
    const worker = api.state.accountWorkers.get("deploy-dispatcher");
    expect(worker?.source).toContain("DISPATCHER.get(entry.script)");
    expect(worker?.bindings).toEqual([
      { type: "kv_namespace", name: "SITES", namespace_id: CF.kvNamespaceId },
      { type: "dispatch_namespace", name: "DISPATCHER", namespace: CF.dispatchNamespace },
    ]);
    expect(api.state.routes).toEqual([
      { pattern: "*.sites.test/*", script: "deploy-dispatcher" },
      { pattern: "*/*", script: "deploy-dispatcher" },
    ]);
    // Again: the routes are there already, and that is fine.
    await expect(
      setUpCloudflare({ ...CF, apiBaseUrl: api.url }, "sites.test", new URL(`file://${dispatcher}`)),
    ).resolves.toContain("route: */* exists");
  });

  it("setup: names each permission the token lacks, and deploys nothing", async () => {
    api.faults.add({
      method: "GET",
      path: /\/storage\/kv\/namespaces\/[0-9a-f]+$/,
      status: 403,
      code: 10000,
      message: "Authentication error",
    });
    await expect(
      setUpCloudflare({ ...CF, apiBaseUrl: api.url }, "sites.test", new URL(`file://${dispatcher}`)),
    ).rejects.toThrow(/missing:\n {2}Account · Workers KV Storage · Edit/);
    expect(api.state.accountWorkers.size).toBe(0);
  });
});
