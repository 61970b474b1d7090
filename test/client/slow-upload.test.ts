import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFaultProxy, type FaultProxy } from "./fault-proxy.js";
import { edgeGet, runInProcess, startTestBed, writeSite, type TestBed } from "./helpers.js";

// A bucket whose body stops arriving is cut off by the real upload service with 408 (at a pace of
// 1 KiB a second over windows of 300 ms here); the client sends it again, as after a 503.

let bed: TestBed;
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await startFaultProxy();
  bed = await startTestBed({
    uploadPublicUrl: proxy.url,
    bodyPace: { minBytesPerSecond: 1024, windowMs: 300 },
  });
  proxy.target = bed.server.urls.upload;
});
afterAll(async () => {
  await bed?.stop();
  await proxy?.close();
});

describe("slow uploads", () => {
  it("deploy: a bucket the upload service cut off with 408 is sent again; every file arrives intact", async () => {
    const site = join(bed.dir, "stalled");
    const files = { "index.html": Buffer.from("<h1>hi</h1>"), "big.bin": randomBytes(256 * 1024) };
    await writeSite(site, files);
    proxy.plan = ["stall"];
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.log).toEqual(["stall", "pass"]);
    // The upload service's own 408 message, relayed, then a retry.
    expect(run.stderr).toContain("request body arrived slower than 1024 bytes a second");
    expect(run.stderr).toMatch(/retrying in/);
    const result = JSON.parse(run.stdout) as { productionUrl: string };
    for (const [path, content] of Object.entries(files)) {
      const response = await edgeGet(bed.server.urls.edge, result.productionUrl, path);
      expect(response.status, path).toBe(200);
      expect(response.body.equals(content), path).toBe(true);
    }
  });
});
