import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

describe("deploy runs at once", () => {
  it("deploy: first-ever runs of several folders at once (a monorepo script) all keep their projects", async () => {
    // A fresh config folder: the runs race to create the install id and to store their tokens. In one
    // process their file operations interleave at every await, which makes the race show every time.
    const env = { ...bed.env, DEPLOY_CONFIG_DIR: join(bed.dir, "fresh-config") };
    const sites = Array.from({ length: 8 }, (_, n) => join(bed.dir, `package-${n}`));
    for (const [n, site] of sites.entries()) await writeSite(site, { "index.html": `package ${n}` });

    const first = await Promise.all(sites.map((site) => runInProcess([site, "--json"], env)));
    for (const run of first) expect(run.stderr).not.toContain("Error");
    const slugs = first.map((run) => (JSON.parse(run.stdout) as { projectSlug: string }).projectSlug);
    expect(
      Object.values(await storedProjects(env.DEPLOY_CONFIG_DIR))
        .map((p) => p.projectSlug)
        .sort(),
    ).toEqual([...slugs].sort());

    // Each folder deploys again to the same project: its token was kept and its install id matches.
    const again = await Promise.all(sites.map((site) => runInProcess([site, "--json"], env)));
    for (const [n, run] of again.entries()) {
      expect(run.stderr, sites[n]).not.toContain("Error");
      expect((JSON.parse(run.stdout) as { projectSlug: string }).projectSlug).toBe(slugs[n]);
    }
  });
});
