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
    expect(run.stderr).toMatch(/^Hashed 2 files \(13 B\) in \S+$/m);
    expect(run.stderr).toMatch(/^Uploaded 2 files \(13 B\) in \S+$/m);
  });

  it("deploy: a folder with index.html gets no note, and a redeploy creates no project", async () => {
    const dir = join(bed.dir, "with-index");
    await writeSite(dir, { "index.html": "<p>home</p>" });
    const first = await runInProcess([dir], bed.env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("has no index.html");
    await writeSite(dir, { "index.html": "<p>home, again</p>" });
    const second = await runInProcess([dir], bed.env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("Created project");
    // The project file already names the project: not written again, not said again.
    expect(second.stderr).not.toContain("Wrote ");
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
});
