import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepExpired } from "../../src/core/operations/index.js";
import { TestClock } from "../support/clock.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { snapshotStore } from "../support/store-snapshot.js";
import { edgeGet, runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

const DAY = 86_400;

describe("deploy: the server's limits, learnt before anything is created", () => {
  let bed: TestBed;
  beforeAll(async () => {
    bed = await startTestBed({
      maxAssetBytes: 1024,
      maxAssets: 5,
      maxManifestBytes: 4096,
      clientQuotaBytes: 3 * 1024 ** 3,
    });
  });
  afterAll(async () => bed?.stop());

  it("GET /limits: the server's limits, quotas and TTLs, without a token", async () => {
    const response = await fetch(`${bed.server.urls.api}/limits`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      maxFiles: 5,
      maxFileBytes: 1024,
      maxRequestBytes: bed.server.config.maxBodyBytes,
      maxManifestBytes: 4096,
      maxPathBytes: 1024,
      projectQuotaBytes: bed.server.config.projectQuotaBytes,
      pendingQuotaBytes: bed.server.config.pendingQuotaBytes,
      clientQuotaBytes: 3 * 1024 ** 3,
      projectTtlSeconds: 30 * DAY,
      deployTtlSeconds: 3600,
      platform: "built-in",
    });
  });

  it("deploy: a file over the server's limit (the client's own raised) is refused in one line before any project is created", async () => {
    const site = join(bed.dir, "over-server-limit");
    await writeSite(site, { "index.html": "ok", "video/huge.mp4": Buffer.alloc(2048) });
    const before = snapshotStore(bed.server.config.dataDir);
    const run = await runInProcess([site], { ...bed.env, DEPLOY_MAX_FILE_BYTES: "10000000" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "Error: video/huge.mp4 (2.0 KiB) is larger than the server's limit of 1.0 KiB per file\n",
    );
    expect(run.stderr).toContain(`(${bed.server.urls.api}/limits lists what the server accepts.)`);
    expect(run.stderr).not.toContain("Created project");
    expect(run.stderr).not.toContain("manifest[");
    // Nothing on the server (no project, no deploy, no session) and nothing saved by the client.
    expect(snapshotStore(bed.server.config.dataDir)).toEqual(before);
    expect(await storedProjects(bed.configDir)).toEqual({});
  });

  it("deploy: paths longer together than the server's MAX_MANIFEST_BYTES are refused before any project is created", async () => {
    const site = join(bed.dir, "long-paths");
    // 5 paths of 928 bytes: each under the 1,024 of one path, 4,640 together over 4,096.
    const files = Object.fromEntries(
      Array.from({ length: 5 }, (_, i) => [
        [`${i}`.padEnd(230, "d"), "e".repeat(230), "f".repeat(230), `${"g".repeat(230)}.txt`].join("/"),
        `file ${i}`,
      ]),
    );
    await writeSite(site, files);
    const before = snapshotStore(bed.server.config.dataDir);
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("MANIFEST_TOO_LARGE");
    expect(run.stderr).toContain("the server accepts at most 4.0 KiB of paths in one deploy");
    expect(run.stderr).not.toContain("Created project");
    expect(snapshotStore(bed.server.config.dataDir)).toEqual(before);
  });

  it("deploy: more files than the server takes (the client's own limit higher) is refused before any project is created", async () => {
    const site = join(bed.dir, "too-many-for-server");
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, `file ${i}`]));
    await writeSite(site, files);
    const before = snapshotStore(bed.server.config.dataDir);
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("TOO_MANY_FILES");
    expect(run.stderr).toContain("the server accepts a deploy that may hold at most 5");
    expect(snapshotStore(bed.server.config.dataDir)).toEqual(before);
  });
});

describe("deploy: when the site expires", () => {
  let bed: TestBed;
  beforeAll(async () => {
    bed = await startTestBed();
  });
  afterAll(async () => bed?.stop());

  it("deploy: the summary names the date the site expires and how to keep it; --json carries expiresAt", async () => {
    const site = join(bed.dir, "expiring");
    await writeSite(site, { "index.html": "v1" });
    const started = Date.now();
    const run = await runInProcess([site], bed.env);
    expect(run.code).toBe(0);
    const line = run.stdout.split("\n").find((text) => text.startsWith("  Expires:"));
    const match = /^ {2}Expires: {4}(\d{4}-\d\d-\d\d \d\d:\d\d) UTC, unless deployed again before then/.exec(
      line ?? "",
    );
    expect(match, run.stdout).not.toBeNull();
    // 30 days (the default PROJECT_TTL_SECONDS) after this deploy, to the minute.
    const shown = Date.parse(`${match![1]!.replace(" ", "T")}:00Z`);
    expect(Math.abs(shown - (started + 30 * DAY * 1000))).toBeLessThan(2 * 60_000);
    await writeSite(site, { "index.html": "v2" });
    const json = JSON.parse((await runInProcess([site, "--json"], bed.env)).stdout);
    expect(Date.parse(json.expiresAt)).toBeGreaterThan(started + 29 * DAY * 1000);
  });
});

/** Deploys with PROJECT_TTL_SECONDS=0, moves the clock 100 years, sweeps: still served and deployable. */
async function neverExpires(bed: TestBed, clock: TestClock): Promise<void> {
  const site = join(bed.dir, "forever");
  await writeSite(site, { "index.html": "kept" });
  const run = await runInProcess([site], bed.env);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("  Expires:    never");
  const json = JSON.parse((await runInProcess([site, "--json"], bed.env)).stdout);
  expect(json.expiresAt).toBeNull();

  clock.advance(100 * 365 * DAY);
  const swept = await sweepExpired(bed.server.services);
  expect(swept.projectsPurged).toBe(0);
  const served = await edgeGet(bed.server.urls.edge, json.productionUrl, "index.html");
  expect([served.status, served.body.toString()]).toEqual([200, "kept"]);
  const status = JSON.parse((await runInProcess(["status", "--dir", site, "--json"], bed.env)).stdout);
  expect(status.expired).toBe(false);
  await writeSite(site, { "index.html": "still mine" });
  const again = JSON.parse((await runInProcess([site, "--json"], bed.env)).stdout);
  expect(again.projectSlug).toBe(json.projectSlug);
}

describe("deploy: PROJECT_TTL_SECONDS=0 on SQLite", () => {
  const clock = new TestClock();
  let bed: TestBed;
  beforeAll(async () => {
    bed = await startTestBed({ projectTtlSeconds: 0, clock });
  });
  afterAll(async () => bed?.stop());

  it("PROJECT_TTL_SECONDS=0: a project never expires: the clock 100 years ahead, a sweep, still served and deployable", () =>
    neverExpires(bed, clock));
});

await describePostgres("deploy: PROJECT_TTL_SECONDS=0 on PostgreSQL", () => {
  const clock = new TestClock();
  let bed: TestBed;
  beforeAll(async () => {
    const { url, schema } = testPostgres();
    bed = await startTestBed({ projectTtlSeconds: 0, clock, databaseUrl: url, databaseSchema: schema });
  });
  afterAll(async () => bed?.stop());

  it("PROJECT_TTL_SECONDS=0 (PostgreSQL): a project never expires: the clock 100 years ahead, a sweep, still served and deployable", () =>
    neverExpires(bed, clock));
});
