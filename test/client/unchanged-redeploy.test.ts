import { existsSync } from "node:fs";
import { readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeGet, runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

/** Runs the client with --json and parses stdout; the run must succeed. */
async function json<T = any>(argv: string[]): Promise<{ result: T; stderr: string }> {
  const run = await runInProcess([...argv, "--json"], bed.env);
  expect(run.code, run.stderr).toBe(0);
  return { result: JSON.parse(run.stdout) as T, stderr: run.stderr };
}

/** A site whose files were written an hour ago, as a build before a deploy leaves them. */
async function settledSite(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(bed.dir, name);
  await writeSite(dir, files);
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const path of Object.keys(files)) await utimes(join(dir, path), hourAgo, hourAgo);
  return dir;
}

/** The folder's files in the client's hash-cache folder: the hash cache and the last deploy's record. */
async function cacheFiles(): Promise<string[]> {
  const dir = join(bed.configDir, "hash-cache");
  return existsSync(dir) ? (await readdir(dir)).sort() : [];
}

/** Removes the hash cache a first deploy added (of those not in `before`); returns its name. */
async function removeAddedCache(before: string[]): Promise<string> {
  const added = (await cacheFiles()).filter((name) => !before.includes(name) && !name.endsWith(".last.json"));
  expect(added).toHaveLength(1);
  await rm(join(bed.configDir, "hash-cache", added[0]!));
  return added[0]!;
}

const page = async (url: string, path = "index.html") =>
  (await edgeGet(bed.server.urls.edge, url, path)).body.toString();

describe("deploy: unchanged redeploys by digest", () => {
  it("deploy: an unchanged redeploy reads no file: the hash cache, removed, is not rebuilt", async () => {
    const before = await cacheFiles();
    const dir = await settledSite("by-digest", { "index.html": "same", "a.css": "a{}", "b.css": "a{}" });
    const { result: first } = await json([dir]);
    const added = (await cacheFiles()).filter((name) => !before.includes(name));
    expect(added.map((name) => name.replace(/^[0-9a-f]{64}/, "<hash>")).sort()).toEqual([
      "<hash>.json",
      "<hash>.last.json",
    ]);
    const cache = await removeAddedCache(before);

    const { result: again, stderr } = await json([dir]);
    expect(again).toMatchObject({
      unchanged: true,
      revisionId: first.revisionId,
      files: 3,
      identical: 1,
      uploaded: 0,
    });
    expect(stderr).toMatch(/3 files \(.*\) unchanged since the last deploy: none read again/);
    // The long way would have hashed every file again and written the cache back.
    expect(await cacheFiles()).not.toContain(cache);
  });

  it("deploy: after a rollback, the unchanged folder goes the long way and is live again", async () => {
    const dir = await settledSite("after-rollback", { "index.html": "one" });
    await json([dir]);
    await writeFile(join(dir, "index.html"), "two");
    const hourAgo = new Date(Date.now() - 3_500_000);
    await utimes(join(dir, "index.html"), hourAgo, hourAgo);
    const { result: second } = await json([dir]);
    expect(await page(second.productionUrl)).toBe("two");
    const rollback = await runInProcess(["rollback", "--dir", dir, "--json"], bed.env);
    expect(rollback.code, rollback.stderr).toBe(0);
    expect(await page(second.productionUrl)).toBe("one");

    // Its stats are those of the last deploy, but production is no longer what that deploy made.
    const { result: third } = await json([dir]);
    expect(third.unchanged).toBeUndefined();
    expect(third.uploaded).toBe(0);
    expect(third.revisionId).not.toBe(second.revisionId);
    expect(await page(second.productionUrl)).toBe("two");
  });

  it("deploy: a file touched but not changed goes the long way, is answered unchanged, and the next run is quick", async () => {
    const before = await cacheFiles();
    const dir = await settledSite("touched", { "index.html": "kept", "x.txt": "x" });
    const { result: first } = await json([dir]);
    const later = new Date(Date.now() - 1_800_000);
    await utimes(join(dir, "x.txt"), later, later);
    const { result: touched, stderr } = await json([dir]);
    expect(touched).toMatchObject({ unchanged: true, revisionId: first.revisionId });
    expect(stderr).toMatch(
      /^Hashed 1 of 2 files \(1 B\) in \S+; 1 unchanged since the last deploy was not read again$/m,
    );
    const cache = await removeAddedCache(before);
    const { result: quick, stderr: quickErr } = await json([dir]);
    expect(quick).toMatchObject({ unchanged: true, revisionId: first.revisionId });
    expect(quickErr).toMatch(/2 files \(.*\) unchanged since the last deploy: none read again/);
    expect(await cacheFiles()).not.toContain(cache);
  });

  it("deploy: a file modified within its racy window is not remembered by its stats", async () => {
    const before = await cacheFiles();
    const dir = await settledSite("racy", { "index.html": "now" });
    // A modification time ahead of the scan: its stats cannot vouch for its content next time.
    const ahead = new Date(Date.now() + 60_000);
    await utimes(join(dir, "index.html"), ahead, ahead);
    await json([dir]);
    const added = (await cacheFiles()).filter((name) => !before.includes(name));
    expect(added.filter((name) => name.endsWith(".last.json"))).toEqual([]);
  });

  it("deploy --preview: leaves the record of production alone; the next deploy is still quick", async () => {
    const before = await cacheFiles();
    const dir = await settledSite("preview-kept", { "index.html": "live" });
    const { result: live } = await json([dir]);
    const { result: preview } = await json(["--preview", dir]);
    expect(preview.preview).toBe(true);
    const cache = await removeAddedCache(before);
    const { result: again, stderr } = await json([dir]);
    expect(again).toMatchObject({ unchanged: true, revisionId: live.revisionId });
    expect(stderr).toMatch(/none read again/);
    expect(await cacheFiles()).not.toContain(cache);
  });

  it("deploy: an unchanged redeploy rewrites the saved project only when production's address moved", async () => {
    const dir = await settledSite("saved-url", { "index.html": "here" });
    const { result: first } = await json([dir]);
    const name = Object.entries(await storedProjects(bed.configDir)).find(
      ([, project]) => project.projectSlug === first.projectSlug,
    )![0];
    const file = join(bed.configDir, "projects", name);
    const before = await stat(file);
    expect((await json([dir])).result.unchanged).toBe(true);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);

    // As if production's address had changed elsewhere (a domain assigned from another machine).
    const saved = JSON.parse(await readFile(file, "utf8"));
    saved.record.productionUrl = "http://old.example/";
    await writeFile(file, JSON.stringify(saved));
    const { result: again } = await json([dir]);
    expect(again.unchanged).toBe(true);
    expect(JSON.parse(await readFile(file, "utf8")).record.productionUrl).toBe(first.productionUrl);
  });
});
