import { readFile, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, startTestBed, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

describe("deploy: what the run says on stderr", () => {
  it("deploy: a first deploy names the project it created for the folder; a folder without index.html gets a note", async () => {
    const dir = join(bed.dir, "no-index");
    await writeSite(dir, { "about.html": "<p>about</p>", "app.js": "1" });
    const run = await runInProcess([dir, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    const { projectSlug } = JSON.parse(run.stdout) as { projectSlug: string };
    expect(run.stderr).toContain(`\nCreated project ${projectSlug} for ${dir}\n`);
    expect(run.stderr).toContain(
      `Wrote ${join(dir, ".static-deploy.json")}: it names project ${projectSlug} and holds no secret. ` +
        "Commit it: moved or cloned, the folder deploys to the same project.\n",
    );
    expect(run.stderr).toContain(
      `Note: ${dir} has no index.html: the site's address (/) answers 404 unless a _redirects rule serves it.\n`,
    );
    expect(run.stderr).toMatch(/^Hashed 2 files \(13 B\) in (\d+ms|\d+\.\ds)$/m);
    expect(run.stderr).toMatch(/^Uploaded 2 files \(13 B\) in (\d+ms|\d+\.\ds)$/m);
    // Nothing was skipped: no line says so.
    expect(run.stderr).not.toContain("Skipped");
  });

  it("deploy: a folder with index.html gets no note, and a redeploy creates no project", async () => {
    const dir = join(bed.dir, "with-index");
    await writeSite(dir, { "index.html": "<p>home</p>", "style.css": "p {}" });
    const first = await runInProcess([dir], bed.env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("has no index.html");
    const projectFile = join(dir, ".static-deploy.json");
    expect(JSON.parse(await readFile(projectFile, "utf8"))).not.toHaveProperty("publishAsIs");
    // A whole second, which the file system keeps exactly.
    const hourAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    await utimes(projectFile, hourAgo, hourAgo);
    await writeSite(dir, { "index.html": "<p>home, again</p>" });
    const second = await runInProcess([dir], bed.env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("Created project");
    // The project file already names the project: not written again, not said again.
    expect(second.stderr).not.toContain("Wrote ");
    expect((await stat(projectFile)).mtimeMs).toBe(hourAgo.getTime());
  });
  it("deploy --message: an unchanged folder still gets a revision of its own, which carries the message", async () => {
    const dir = join(bed.dir, "messages");
    await writeSite(dir, { "index.html": "<p>same</p>" });
    const first = await runInProcess([dir, "--json"], bed.env);
    expect(first.code, first.stderr).toBe(0);
    const again = await runInProcess([dir, "--json", "--message", "release notes"], bed.env);
    expect(again.code, again.stderr).toBe(0);
    const before = JSON.parse(first.stdout) as Record<string, unknown>;
    const after = JSON.parse(again.stdout) as Record<string, unknown>;
    expect(after.unchanged).toBeUndefined();
    expect(after.revisionId).not.toBe(before.revisionId);
    expect(after.message).toBe("release notes");
    expect(before.message).toBeUndefined();
  });
  it("deploy: a redeploy that reads one file of three says the other two were not read again", async () => {
    const dir = join(bed.dir, "three");
    const files = { "index.html": "<p>1</p>", "a.txt": "aa", "b.txt": "bbb" };
    await writeSite(dir, files);
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const path of Object.keys(files)) await utimes(join(dir, path), hourAgo, hourAgo);
    expect((await runInProcess([dir], bed.env)).code).toBe(0);
    const later = new Date(Date.now() - 1_800_000);
    await utimes(join(dir, "b.txt"), later, later);
    const run = await runInProcess([dir], bed.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(
      /^Hashed 1 of 3 files \(3 B\) in (\d+ms|\d+\.\ds); 2 unchanged since the last deploy were not read again$/m,
    );
  });

  it("deploy --yes: a folder deployed before that now looks like a source remembers the yes without saying the file was written", async () => {
    const dir = join(bed.dir, "became-source");
    await writeSite(dir, { "index.html": "<p>built</p>" });
    expect((await runInProcess([dir], bed.env)).code).toBe(0);
    await writeSite(dir, { "package.json": "{}" });
    expect((await runInProcess([dir], bed.env)).code).toBe(1);
    const yes = await runInProcess([dir, "--yes"], bed.env);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stderr).not.toContain("Wrote ");
    expect(JSON.parse(await readFile(join(dir, ".static-deploy.json"), "utf8"))).toMatchObject({
      publishAsIs: true,
    });
    const later = await runInProcess([dir], bed.env);
    expect(later.code, later.stderr).toBe(0);
  });
});
