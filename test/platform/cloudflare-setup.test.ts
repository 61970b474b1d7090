import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { UploadPlatformError } from "../../src/core/errors.js";
import { type SetupOptions, setUpCloudflare } from "../../src/platform/cloudflare/setup.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { tokenCheckRateLimited } from "../support/cloudflare-api/faults.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";
import { TestClock } from "../support/clock.js";
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
  /** The setup against this test's Cloudflare API, deploying the dispatcher built above. */
  const setUp = (options: Omit<SetupOptions, "dispatcherPath"> = {}) =>
    setUpCloudflare({ ...CF, apiBaseUrl: api.url }, "sites.test", {
      dispatcherPath: new URL(`file://${dispatcher}`),
      ...options,
    });

  it("setup: deploys the dispatch Worker with its two bindings, on the sites' wildcard and the fallback route", async () => {
    const lines = await setUp();
    expect(lines).toContain("token: active");
    const worker = api.state.accountWorkers.get("deploy-dispatcher");
    expect(worker?.source).toContain("DISPATCHER.get(entry.script)");
    expect(worker?.compatibilityDate).toBe("2025-01-01");
    expect(worker?.moduleType).toBe("application/javascript+module");
    expect(worker?.bindings).toEqual([
      { type: "kv_namespace", name: "SITES", namespace_id: CF.kvNamespaceId },
      { type: "dispatch_namespace", name: "DISPATCHER", namespace: CF.dispatchNamespace },
    ]);
    expect(api.state.routes).toEqual([
      { pattern: "*.sites.test/*", script: "deploy-dispatcher" },
      { pattern: "*/*", script: "deploy-dispatcher" },
    ]);
    // Again: the routes are there already, and that is fine.
    await expect(setUp()).resolves.toContain("route: */* exists");
  });

  it("setup: prints each step, and calls Cloudflare for the configured account and zone", async () => {
    const lines = await setUp();
    expect(lines).toEqual([
      "token: active",
      "permissions: dispatch namespace, KV namespace and custom hostnames reachable",
      "dispatch Worker: deploy-dispatcher uploaded",
      "route: *.sites.test/* → deploy-dispatcher",
      "route: */* → deploy-dispatcher",
    ]);
    const account = `/accounts/${CF.accountId}`;
    expect(api.calls).toEqual([
      "GET /client/v4/user/tokens/verify",
      `GET /client/v4${account}/workers/dispatch/namespaces/${CF.dispatchNamespace}`,
      `GET /client/v4${account}/storage/kv/namespaces/${CF.kvNamespaceId}`,
      `GET /client/v4/zones/${CF.zoneId}/custom_hostnames`,
      `PUT /client/v4${account}/workers/scripts/deploy-dispatcher`,
      `POST /client/v4/zones/${CF.zoneId}/workers/routes`,
      `POST /client/v4/zones/${CF.zoneId}/workers/routes`,
    ]);
    await expect(setUp()).resolves.toEqual([
      "token: active",
      "permissions: dispatch namespace, KV namespace and custom hostnames reachable",
      "dispatch Worker: deploy-dispatcher uploaded",
      "route: *.sites.test/* exists",
      "route: */* exists",
    ]);
  });

  it("setup: a route Cloudflare refuses for another reason than its existing fails the setup", async () => {
    api.faults.add({
      method: "POST",
      path: /\/workers\/routes$/,
      status: 400,
      code: 10021,
      message: "invalid route pattern",
    });
    await expect(setUp()).rejects.toMatchObject({
      status: 400,
      message: "HTTP 400, code 10021: invalid route pattern",
    });
    expect(api.state.routes).toEqual([]);
  });

  it.each([
    { method: "PUT", path: /\/workers\/scripts\/deploy-dispatcher$/, step: "uploading the dispatch Worker" },
    { method: "POST", path: /\/workers\/routes$/, step: "adding route *.sites.test/*" },
  ])("setup: a token refused on $step says so, naming the step", async ({ method, path, step }) => {
    api.faults.add({ method, path, status: 403, code: 10000, message: "Authentication error" });
    await expect(setUp()).rejects.toThrow(
      `Cloudflare refused the API token on ${step} (HTTP 403, code 10000: Authentication error)`,
    );
  });

  it("setup: an answer that is not Cloudflare's is the setup's failure, not a missing permission", async () => {
    api.faults.add({
      method: "GET",
      path: /\/storage\/kv\/namespaces\/[0-9a-f]+$/,
      status: 200,
      code: 0,
      message: "",
      body: "<html>a proxy's page</html>",
    });
    const failure = setUp();
    // The SDK's own error for a body that is not JSON, as it threw it: no permission is named.
    await expect(failure).rejects.not.toBeInstanceOf(UploadPlatformError);
    await expect(failure).rejects.toThrow(/json/i);
    expect(api.state.accountWorkers.size).toBe(0);
  });

  it("setup: without a path, reads dispatcher.js beside the platform's own modules (the build's)", async () => {
    // Run from the sources, where only dispatcher.ts exists: the read names the file it wanted.
    const expected = fileURLToPath(
      new URL("../../src/platform/cloudflare/dispatcher/dispatcher.js", import.meta.url),
    );
    await expect(setUpCloudflare({ ...CF, apiBaseUrl: api.url }, "sites.test")).rejects.toMatchObject({
      code: "ENOENT",
      path: expected,
    });
    expect(api.state.accountWorkers.size).toBe(0);
  });

  it("setup: a namespace Cloudflare does not find is named as missing, and nothing is deployed", async () => {
    api.faults.add({
      method: "GET",
      path: /\/workers\/dispatch\/namespaces\/sites$/,
      status: 404,
      code: 10092,
      message: "namespace not found",
    });
    api.faults.add({
      method: "GET",
      path: /\/custom_hostnames$/,
      status: 403,
      code: 10000,
      message: "Authentication error",
    });
    const failure = setUp();
    await expect(failure).rejects.toBeInstanceOf(UploadPlatformError);
    await expect(failure).rejects.toThrow(
      "the API token cannot do everything needed; missing:\n" +
        "  Account · Workers Scripts · Edit (dispatch namespace): HTTP 404, code 10092: namespace not found\n" +
        "  Zone · SSL and Certificates · Edit (custom hostnames): Cloudflare refused the API token on " +
        "checking Zone · SSL and Certificates · Edit (custom hostnames) (HTTP 403, code 10000: " +
        "Authentication error); check CLOUDFLARE_API_TOKEN and its permissions (docs/cloudflare.md)",
    );
    expect(api.state.accountWorkers.size).toBe(0);
  });

  it("setup: a Retry-After beyond the setup's retry budget fails at once, without a second try", async () => {
    api.faults.add(tokenCheckRateLimited(new Date(Date.now() + 3_600_000).toUTCString()));
    await expect(setUp()).rejects.toThrow(
      /^Cloudflare failed on verifying the API token \(HTTP 429, code 10429: rate limited\)/,
    );
    expect(api.calls).toEqual(["GET /client/v4/user/tokens/verify"]);
  });

  it("setup: a Retry-After of 0 is waited out and the call tried again", async () => {
    api.faults.add(tokenCheckRateLimited(0));
    await expect(setUp()).resolves.toContain("token: active");
    expect(api.faults.hits).toEqual(["GET /client/v4/user/tokens/verify"]);
  });

  it("setup: a Retry-After of 5 is waited out with its sleep, 5 s, and the call tried again", async () => {
    api.faults.add(tokenCheckRateLimited(5));
    const waits: number[] = [];
    const lines = await setUp({
      sleep: async (ms) => void waits.push(ms),
    });
    expect(lines).toContain("token: active");
    expect(waits).toEqual([5_000]);
    expect(api.faults.hits).toEqual(["GET /client/v4/user/tokens/verify"]);
  });

  it("setup: a Retry-After date is read on the setup's clock: 5 s past its now is a wait of 5 s", async () => {
    // An hour ahead of the system's time, on a whole second (HTTP dates have no fractions).
    const clock = new TestClock();
    clock.advance(3_600);
    clock.freeze();
    clock.advanceTo(Math.ceil(clock.now() / 1000) * 1000);
    api.faults.add(tokenCheckRateLimited(new Date(clock.now() + 5_000).toUTCString()));
    const waits: number[] = [];
    await setUp({
      clock,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(waits).toEqual([5_000]);
  });

  it("setup: names each permission the token lacks, and deploys nothing", async () => {
    api.faults.add({
      method: "GET",
      path: /\/storage\/kv\/namespaces\/[0-9a-f]+$/,
      status: 403,
      code: 10000,
      message: "Authentication error",
    });
    await expect(setUp()).rejects.toThrow(/missing:\n {2}Account · Workers KV Storage · Edit/);
    expect(api.state.accountWorkers.size).toBe(0);
  });
});
