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

describe("deploy: a manifest over the server's request size", () => {
  let small: TestBed;
  beforeAll(async () => {
    small = await startTestBed({ maxBodyBytes: 64 * 1024 });
  });
  afterAll(async () => {
    await small?.stop();
  });

  /**
   * 64 files of one byte whose paths make the client's bound of the prepare body (512 bytes, and
   * per file the longest slug, the JSON around the path, 32 hex and the size) exactly 64 KiB, plus
   * `extra` bytes in one name.
   */
  async function site(name: string, extra: number): Promise<string> {
    const dir = join(small.dir, name);
    const folder = ["a", "b", "c"].map((letter) => letter.repeat(250)).join("/");
    const files: Record<string, string> = {};
    for (let i = 0; i < 64; i++) {
      files[`${folder}/${String(i).padStart(161 + (i === 0 ? extra : 0), "0")}.txt`] = "x";
    }
    await writeSite(dir, files);
    return dir;
  }

  it("deploy: a list of files and paths one byte over the server's request size is refused in words before anything is created", async () => {
    const run = await runInProcess([await site("over", 1), "--json"], small.env);
    expect(run.code).toBe(1);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("MANIFEST_TOO_LARGE");
    expect(error.message).toBe(
      "the list of 64 files and their paths takes 64.0 KiB; the server accepts at most 64.0 KiB in one request",
    );
    expect(run.stderr).toContain("Shorten the longest paths, or leave files out with .deployignore.\n");
    expect(Object.keys(await storedProjects(small.configDir))).toEqual([]);
  });

  it("deploy: a list that fits the server's request size exactly is deployed", async () => {
    const run = await runInProcess([await site("exact", 0), "--json"], small.env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ files: 64 });
  });
});
