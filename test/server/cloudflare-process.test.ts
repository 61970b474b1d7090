import { existsSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/server/config.js";
import { type RunningProcess, startProcess } from "../../src/server/start.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";
import { runInProcess, startProcessBed, type TestBed, writeSite } from "../client/helpers.js";

/** A process with PLATFORM=cloudflare: what it opens, and what its logs never say. */
describe("server on Cloudflare", () => {
  let api: CloudflareApi;
  let bed: TestBed<RunningProcess>;
  const lines: string[] = [];

  beforeAll(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
    bed = await startProcessBed({
      sitesDomain: "sites.test",
      cloudflare: { ...CF, apiBaseUrl: api.url },
      // Everything the process logs, at its most talkative.
      logger: pino({ level: "trace" }, { write: (line: string) => void lines.push(line) }),
    });
  });
  afterAll(async () => {
    await bed?.stop();
    await api?.close();
  });

  it("startProcess: only the API and operator listeners open, and nothing of the built-in platform is created", async () => {
    expect(Object.keys(bed.server.urls).sort()).toEqual(["api", "ops"]);
    expect(bed.server.platform).toBeUndefined();
    expect(existsSync(join(bed.dir, "data", "platform"))).toBe(false);
    expect(existsSync(join(bed.dir, "data"))).toBe(true);
    const health = await fetch(`${bed.server.urls.ops}/healthz`);
    expect(health.status).toBe(200);
  });

  it("startProcess: ROLES naming the upload or edge role is refused before anything opens", async () => {
    const started = startProcess({
      cloudflare: { ...CF, apiBaseUrl: api.url },
      roles: ["api", "edge"],
      dataDir: join(bed.dir, "refused"),
      port: 0,
      metricsPort: 0,
      logger: pino({ level: "silent" }),
    });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(/ROLES: with PLATFORM=cloudflare a process runs only the api role/);
    expect(existsSync(join(bed.dir, "refused"))).toBe(false);
  });

  it("logs: the API token is in no log line, through a deploy and a token Cloudflare refuses", async () => {
    const site = join(bed.dir, "site");
    await writeSite(site, { "index.html": "<h1>home</h1>" });
    expect((await runInProcess([site, "--json"], bed.env)).code).toBe(0);
    api.faults.add({
      method: "POST",
      path: /assets-upload-session$/,
      status: 403,
      code: 10000,
      message: "Authentication error",
      times: Infinity,
    });
    await writeSite(site, { "index.html": "<h1>home, changed</h1>" });
    const refused = await runInProcess([site, "--json"], bed.env);
    api.faults.clear();
    expect(refused.code).not.toBe(0);
    // The code goes to --json's error (stderr says it in words).
    expect(JSON.parse(refused.stdout).error.code).toBe("UPLOAD_PLATFORM_ERROR");
    // The failure was logged, with Cloudflare's words, and the token nowhere.
    expect(lines.some((line) => line.includes("Cloudflare refused the API token"))).toBe(true);
    expect(lines.length).toBeGreaterThan(4);
    expect(lines.filter((line) => line.includes(CF.apiToken))).toEqual([]);
    expect(refused.stderr + refused.stdout).not.toContain(CF.apiToken);
  });
});
