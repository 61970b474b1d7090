import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TestClock } from "../support/clock.js";
import { startFaultProxy, type FaultProxy } from "./fault-proxy.js";
import { edgeGet, runInProcess, startTestBed, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;
let proxy: FaultProxy;

beforeAll(async () => {
  proxy = await startFaultProxy();
  bed = await startTestBed({ uploadPublicUrl: proxy.url, bucketMaxFiles: 10 });
  proxy.target = bed.server.urls.upload;
});
afterAll(async () => {
  await bed?.stop();
  await proxy?.close();
});
beforeEach(() => {
  proxy.plan = [];
  proxy.log = [];
});

/** A site of 40 small random files and one of 1 MiB: several buckets. */
function randomSite(label: string): Record<string, Buffer> {
  const files: Record<string, Buffer> = { "big/blob.bin": randomBytes(1024 * 1024) };
  for (let i = 0; i < 40; i++) files[`${label}/page-${i}.html`] = randomBytes(2000 + i);
  return files;
}

async function expectServed(productionUrl: string, files: Record<string, Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const response = await edgeGet(bed.server.urls.edge, productionUrl, path);
    expect(response.status, path).toBe(200);
    expect(response.body.equals(content), path).toBe(true);
  }
}

describe("upload faults", () => {
  it("deploy: dropped connections mid-upload, 503s and a 429 are retried; every file arrives intact", async () => {
    const site = join(bed.dir, "flaky");
    const files = randomSite("flaky");
    await writeSite(site, files);
    proxy.plan = ["drop", "503", "drop", "503", "429"];
    const run = await runInProcess([site, "--json"], { ...bed.env, DEPLOY_UPLOAD_CONCURRENCY: "2" });
    expect(run.stderr).not.toContain("Error:");
    expect(run.code).toBe(0);
    expect(proxy.log.slice(0, 5)).toEqual(["drop", "503", "drop", "503", "429"]);
    expect(proxy.log.filter((fault) => fault === "pass").length).toBeGreaterThanOrEqual(5);
    expect(run.stderr).toContain("connection reset");
    // The 503's message, in words (its status is for DEBUG=1).
    expect(run.stderr).toContain("service unavailable");
    expect(run.stderr).toMatch(/retrying in 1\.0s/);
    const result = JSON.parse(run.stdout) as { productionUrl: string; uploaded: number; files: number };
    expect(result.uploaded).toBe(41);
    expect(result.files).toBe(41);
    await expectServed(result.productionUrl, files);
  });

  it("deploy: an expired upload token makes the client prepare again and upload only what is missing", async () => {
    const site = join(bed.dir, "expired-token");
    const files = randomSite("expired");
    await writeSite(site, files);
    proxy.plan = ["pass", "401"];
    const run = await runInProcess([site, "--json"], { ...bed.env, DEPLOY_UPLOAD_CONCURRENCY: "1" });
    expect(run.stderr).not.toContain("Error:");
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("refused the upload token");
    expect(run.stderr).toContain("preparing the deploy again");
    const result = JSON.parse(run.stdout) as { productionUrl: string; uploaded: number };
    expect(result.uploaded).toBe(41);
    // one bucket of ten passed, one was refused, the rest went after the second prepare
    expect(proxy.log.filter((fault) => fault === "pass").length).toBe(5);
    await expectServed(result.productionUrl, files);
  });

  it("deploy: a 4xx other than 401 is not retried and names the bucket's files", async () => {
    const site = join(bed.dir, "refused");
    await writeSite(site, { "index.html": randomBytes(100) });
    proxy.plan = ["400"];
    const run = await runInProcess([site], bed.env);
    expect(run.code).toBe(1);
    expect(proxy.log).toEqual(["400"]);
    expect(run.stderr).toContain("Error: could not upload 1 file (index.html): bad part\n");
    expect(run.stderr).not.toContain("retrying");
  });
});

describe("completion faults", () => {
  it("deploy: a preparation that expired before completion is prepared again and completed", async () => {
    const apiProxy = await startFaultProxy();
    const clock = new TestClock();
    const slowBed = await startTestBed({ deployTtlSeconds: 60, clock });
    apiProxy.target = slowBed.server.urls.api;
    // The completion arrives after the preparation's 60 s are up.
    apiProxy.onLate = () => clock.advance(61);
    try {
      const site = join(slowBed.dir, "slow");
      const files = { "index.html": randomBytes(300), "app.js": randomBytes(300) };
      await writeSite(site, files);
      // the limits, create, prepare, then the completion arrives late
      apiProxy.plan = ["pass", "pass", "pass", "late"];
      const run = await runInProcess([site, "--json", "--api-url", apiProxy.url], slowBed.env);
      expect(run.stderr).not.toContain("Error:");
      expect(run.code).toBe(0);
      expect(run.stderr).toContain("preparing it again");
      const result = JSON.parse(run.stdout) as {
        productionUrl: string;
        uploaded: number;
        bytesUploaded: number;
      };
      expect(result).toMatchObject({ uploaded: 2, bytesUploaded: 600 });
      for (const [path, content] of Object.entries(files)) {
        const response = await edgeGet(slowBed.server.urls.edge, result.productionUrl, path);
        expect(response.body.equals(content)).toBe(true);
      }
    } finally {
      await slowBed.stop();
      await apiProxy.close();
    }
  });
});
