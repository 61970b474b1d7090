import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed({ pendingQuotaBytes: 3000 });
});
afterAll(async () => {
  await bed?.stop();
});

describe("deploy: the server's quotas, known before anything is created", () => {
  it("deploy: content over the pending quota is refused for a new project before it is created", async () => {
    const dir = join(bed.dir, "over-pending");
    await writeSite(dir, { "index.html": "a".repeat(2000), "b.html": "b".repeat(2000) });
    const run = await runInProcess([dir, "--json"], bed.env);
    expect(run.code).toBe(1);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("QUOTA_EXCEEDED");
    expect(error.message).toBe(
      "the site's content is 3.9 KiB; on this server at most 2.9 KiB may wait to be uploaded at once",
    );
    expect(Object.keys(await storedProjects(bed.configDir))).toEqual([]);
  });

  it("deploy: identical files count once against the quotas", async () => {
    const dir = join(bed.dir, "identical");
    await writeSite(dir, { "index.html": "a".repeat(2000), "copy.html": "a".repeat(2000) });
    const run = await runInProcess([dir, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 2, uploaded: 1, identical: 1 });
  });
});
