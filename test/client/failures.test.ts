import { cp, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestClock } from "../support/clock.js";
import { runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;
// The server's time: a project's expiry is reached by moving it, not by waiting.
const clock = new TestClock();
const PROJECT_TTL_SECONDS = 3600;

beforeAll(async () => {
  bed = await startTestBed({ projectTtlSeconds: PROJECT_TTL_SECONDS, clock });
});
afterAll(async () => {
  await bed?.stop();
});

/** A port on 127.0.0.1 with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("deploy failures a person meets", () => {
  it("deploy: server down gives exit 1 and says which URL did not answer, after retrying", async () => {
    const site = join(bed.dir, "down");
    await writeSite(site, { "index.html": "x" });
    const port = await closedPort();
    const run = await runInProcess([site, "--api-url", `http://127.0.0.1:${port}`], {
      ...bed.env,
      DEPLOY_MAX_ATTEMPTS: "2",
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      // The first request of a deploy asks the server's limits, before anything is created.
      `could not read the server's limits: no answer from http://127.0.0.1:${port}/limits`,
    );
    expect(run.stderr).toContain("connection refused: is the server running?");
    expect(run.stderr).toContain("retrying in");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("deploy: a missing folder gives exit 1 naming it", async () => {
    const run = await runInProcess(["./no-such-folder"], bed.env, bed.dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`folder not found: ${join(bed.dir, "no-such-folder")}`);
  });

  it("deploy: an oversize file is named before anything is uploaded or created", async () => {
    const site = join(bed.dir, "oversize");
    await writeSite(site, { "index.html": "ok", "video/huge.mp4": Buffer.alloc(2048) });
    const before = await storedProjects(bed.configDir);
    const run = await runInProcess([site], { ...bed.env, DEPLOY_MAX_FILE_BYTES: "1024" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("larger than the limit of 1.0 KiB per file");
    expect(run.stderr).toContain("video/huge.mp4 (2.0 KiB)");
    // No project was created or saved (other tests of this file share the config folder).
    expect(await storedProjects(bed.configDir)).toEqual(before);
  });

  it("deploy: a file name with a C1 control character is named before anything is created", async () => {
    const site = join(bed.dir, "control-name");
    await writeSite(site, { "index.html": "ok", "menu\u0085.html": "x" });
    const before = await storedProjects(bed.configDir);
    const run = await runInProcess([site], bed.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("control character");
    expect(run.stderr).toContain(String.raw`"menu\u0085.html"`);
    // No project was created or saved (other tests of this file share the config folder).
    expect(await storedProjects(bed.configDir)).toEqual(before);
  });

  it("deploy: too many files is refused with the count", async () => {
    const site = join(bed.dir, "many");
    await writeSite(site, { "a.txt": "a", "b.txt": "b", "c.txt": "c" });
    const run = await runInProcess([site], { ...bed.env, DEPLOY_MAX_FILES: "2" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("holds 3 files; a deploy may hold at most 2");
  });

  it("deploy: an unknown flag is a usage error, exit 2", async () => {
    const run = await runInProcess(["--production"], bed.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option --production");
    expect(run.stderr).toContain("deploy --help");
  });

  it("deploy: a symlink out of the folder is refused, naming the link", async () => {
    const site = join(bed.dir, "leaky");
    await writeSite(site, { "index.html": "x" });
    await writeFile(join(bed.dir, "secret.txt"), "secret");
    await symlink(join(bed.dir, "secret.txt"), join(site, "notes.txt"));
    const run = await runInProcess([site], bed.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`notes.txt → ${join(bed.dir, "secret.txt")} (outside the folder)`);
  });

  it("domain: without a deployed project, exit 1 and says to deploy first", async () => {
    const site = join(bed.dir, "never");
    await writeSite(site, { "index.html": "x" });
    const run = await runInProcess(["domain", "www.example.org", "--dir", site], bed.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("no project for");
    expect(run.stderr).toContain("Deploy the folder first");
  });

  it("domain: the server's refusal is shown in words; --json keeps its code, DEBUG=1 adds the URL and status", async () => {
    const site = join(bed.dir, "bad-domain");
    await writeSite(site, { "index.html": "x" });
    expect((await runInProcess([site], bed.env)).code).toBe(0);
    const run = await runInProcess(["domain", "not a hostname", "--dir", site], bed.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: could not assign the domain: .*not a hostname/m);
    expect(run.stderr).not.toContain("INVALID_DOMAIN");
    expect(run.stderr).not.toContain("answered");
    const json = await runInProcess(["domain", "not a hostname", "--dir", site, "--json"], bed.env);
    expect(JSON.parse(json.stdout).error.code).toBe("INVALID_DOMAIN");
    const debug = await runInProcess(["domain", "not a hostname", "--dir", site], { ...bed.env, DEBUG: "1" });
    expect(debug.stderr).toMatch(
      /http:\/\/127\.0\.0\.1:\d+\/projects\/[a-z0-9-]+\/domains answered 400 INVALID_DOMAIN/,
    );
  });

  it("status: a project deleted elsewhere is said in words, not as 401 UNAUTHORIZED", async () => {
    const site = join(bed.dir, "deleted-elsewhere");
    await writeSite(site, { "index.html": "x" });
    const deployed = JSON.parse((await runInProcess([site, "--json"], bed.env)).stdout);
    const copy = join(bed.dir, "config-copy");
    await cp(bed.configDir, copy, { recursive: true });
    expect((await runInProcess(["delete", "--dir", site, "--yes"], bed.env)).code).toBe(0);
    // The other config folder still holds the token of the project deleted from here.
    const run = await runInProcess(["status", "--dir", site], { ...bed.env, DEPLOY_CONFIG_DIR: copy });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "could not read the project: the server does not know this project's token (the project was deleted, or it lives on another server)",
    );
    expect(run.stderr).not.toMatch(/401|UNAUTHORIZED|bearer/);
    expect(deployed.projectSlug).toMatch(/-/);
  });

  it("domain: a hostname with a path, query or fragment after it exits 1 naming the problem; nothing is assigned", async () => {
    const site = join(bed.dir, "junk-domain");
    await writeSite(site, { "index.html": "x" });
    expect((await runInProcess([site], bed.env)).code).toBe(0);
    for (const [input, problem] of [
      ["www.example.com/path", "has a path"],
      ["www.example.com?x=1", "has a query"],
      ["www.example.com#frag", "has a fragment"],
    ]) {
      const run = await runInProcess(["domain", input!, "--dir", site], bed.env);
      expect(run.code, input).toBe(1);
      expect(run.stdout, input).toBe("");
      expect(run.stderr, input).toContain(problem);
    }
  });

  it("delete: off a terminal without --yes is a usage error and deletes nothing", async () => {
    const site = join(bed.dir, "keep");
    await writeSite(site, { "index.html": "x" });
    expect((await runInProcess([site], bed.env)).code).toBe(0);
    const run = await runInProcess(["delete", "--dir", site], bed.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--yes");
  });

  it("deploy: an expired project is replaced by a new one and the URL change is said", async () => {
    const site = join(bed.dir, "expiring");
    await writeSite(site, { "index.html": "x" });
    const first = await runInProcess([site, "--json"], bed.env);
    const before = JSON.parse(first.stdout) as { projectSlug: string };
    clock.advance(PROJECT_TTL_SECONDS + 1);
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.code).toBe(0);
    const after = JSON.parse(run.stdout) as { projectSlug: string; previousProjectSlug: string };
    expect(after.projectSlug).not.toBe(before.projectSlug);
    expect(after.previousProjectSlug).toBe(before.projectSlug);
    expect(run.stderr).toContain(`The project ${before.projectSlug} has expired`);
  });
});
