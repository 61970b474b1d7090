import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runInProcess, startTestBed, writeSite, type TestBed } from "./helpers.js";

/**
 * A disk that fills up while a bucket arrives (the machine's disk cannot be filled for a test):
 * creating a temporary blob file fails with ENOSPC, as the system would, while `disk.full` is set.
 */
const disk = vi.hoisted(() => ({ full: false }));

vi.mock("node:fs/promises", async (importOriginal) =>
  (await import("../support/full-disk.js")).fullDiskFs(await importOriginal(), disk),
);

// Issue 14, item 3: on a full disk an upload answered 500 and the client retried six times.
describe("a server short of storage", () => {
  let bed: TestBed;
  let short: TestBed;
  beforeAll(async () => {
    bed = await startTestBed();
    short = await startTestBed({ minFreeBytes: Number.MAX_SAFE_INTEGER });
  });
  afterAll(async () => {
    disk.full = false;
    await bed?.stop();
    await short?.stop();
  });

  it("deploy: an upload refused 507 because the disk filled is reported at once, without retrying", async () => {
    const site = join(bed.dir, "full");
    await writeSite(site, { "index.html": "<p>no room</p>" });
    disk.full = true;
    const run = await runInProcess([site], bed.env);
    disk.full = false;
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    // In words on stderr; the status and code are for DEBUG=1 and --json.
    expect(run.stderr).toContain("short of storage");
    expect(run.stderr).not.toContain("retrying in");
  });

  it("deploy: a prepare refused 507 INSUFFICIENT_STORAGE (under MIN_FREE_BYTES) is reported at once, without retrying", async () => {
    const site = join(short.dir, "short");
    await writeSite(site, { "index.html": "<p>no room</p>" });
    const run = await runInProcess([site], short.env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/could not prepare the deploy: .*storage/);
    expect(run.stderr).not.toContain("retrying in");
    const json = await runInProcess([site, "--json"], short.env);
    expect(JSON.parse(json.stdout).error.code).toBe("INSUFFICIENT_STORAGE");
  });
});
