import { readdir, readFile, writeFile } from "node:fs/promises";
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
async function json<T = any>(argv: string[], env = bed.env): Promise<T> {
  const run = await runInProcess([...argv, "--json"], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** A fresh site folder with an index page saying `text`. */
async function site(name: string, text: string): Promise<string> {
  const dir = join(bed.dir, name);
  await writeSite(dir, { "index.html": text });
  return dir;
}

const page = async (url: string, path = "index.html") => {
  const res = await edgeGet(bed.server.urls.edge, url, path);
  return { status: res.status, body: res.body.toString() };
};

describe("status and list", () => {
  it("status: project, production URL, revision, domain and expiry, as text and --json", async () => {
    const dir = await site("status-site", "v1");
    const deployed = await json([dir]);
    const status = await json(["status", "--dir", dir]);
    expect(status).toEqual({
      projectSlug: deployed.projectSlug,
      productionUrl: deployed.productionUrl,
      revisionId: deployed.revisionId,
      revisionUrl: deployed.revisionUrl,
      hostname: new URL(deployed.productionUrl).hostname,
      customHostname: null,
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      expired: false,
      revisions: 1,
    });
    const text = await runInProcess(["status", "--dir", dir], bed.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Project ${deployed.projectSlug}`);
    expect(text.stdout).toContain(`Production: ${deployed.productionUrl}`);
    expect(text.stdout).toMatch(new RegExp(`Revision: +${deployed.revisionId}, deployed`));
    expect(text.stdout).toMatch(/Domain: +\S+ \(generated\)/);
    expect(text.stdout).toMatch(/Expires: +\d{4}-\d\d-\d\d \d\d:\d\d UTC \(in (29|30) days/);
  });

  it("list: revisions newest first, the production one marked, as text and --json", async () => {
    const dir = await site("list-site", "one");
    const one = await json([dir]);
    await writeFile(join(dir, "index.html"), "two, longer");
    const two = await json([dir]);
    const listed = await json(["list", "--dir", dir]);
    expect(listed.projectSlug).toBe(one.projectSlug);
    expect(listed.revisions.map((r: any) => [r.revisionId, r.production, r.files, r.bytes])).toEqual([
      [two.revisionId, true, 1, "two, longer".length],
      [one.revisionId, false, 1, 3],
    ]);
    const text = await runInProcess(["list", "--dir", dir], bed.env);
    const lines = text.stdout.split("\n");
    expect(lines[0]).toMatch(/REVISION +DEPLOYED +FILES +SIZE/);
    expect(lines[1]).toMatch(new RegExp(`^\\* +${two.revisionId} .* production$`));
    expect(lines[2]).toMatch(new RegExp(`^ +${one.revisionId} `));
    expect(text.stdout).toContain("2 revisions kept");
  });

  it("status: without a deployed project, --json prints the error object on stdout, exit 1", async () => {
    const dir = await site("never-deployed", "x");
    const run = await runInProcess(["status", "--dir", dir, "--json"], bed.env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: "NO_PROJECT", message: expect.stringContaining(dir) },
    });
  });
});

describe("rollback, promote and previews", () => {
  it("rollback: without an id, production goes back to the revision before; the edge serves it at once", async () => {
    const dir = await site("rollback-site", "first");
    const first = await json([dir]);
    await writeFile(join(dir, "index.html"), "second");
    const second = await json([dir]);
    expect(await page(second.productionUrl)).toEqual({ status: 200, body: "second" });
    const rolled = await json(["rollback", "--dir", dir]);
    expect(rolled).toMatchObject({ revisionId: first.revisionId, previousRevisionId: second.revisionId });
    expect(await page(first.productionUrl)).toEqual({ status: 200, body: "first" });
    // Named, the way back.
    const text = await runInProcess(["rollback", second.revisionId, "--dir", dir], bed.env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `production serves revision ${second.revisionId} (was ${first.revisionId})`,
    );
    expect(await page(first.productionUrl)).toEqual({ status: 200, body: "second" });
  });

  it("rollback: with nothing older, NO_PREVIOUS_REVISION and production unchanged", async () => {
    const dir = await site("rollback-none", "only");
    const only = await json([dir]);
    const run = await runInProcess(["rollback", "--dir", dir, "--json"], bed.env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("NO_PREVIOUS_REVISION");
    expect(await page(only.productionUrl)).toEqual({ status: 200, body: "only" });
  });

  it("deploy --preview: the revision URL serves the new files, production is unchanged; promote puts it live", async () => {
    const dir = await site("preview-site", "live");
    const live = await json([dir]);
    await writeFile(join(dir, "index.html"), "draft");
    const preview = await json(["--preview", dir]);
    expect(preview.preview).toBe(true);
    expect(preview.productionUrl).toBe(live.productionUrl);
    expect(await page(preview.revisionUrl)).toEqual({ status: 200, body: "draft" });
    expect(await page(live.productionUrl)).toEqual({ status: 200, body: "live" });
    const text = await runInProcess(["--preview", dir], bed.env);
    expect(text.stdout).toMatch(/^Preview of .*; production unchanged/);
    // A rollback skips previews: they were never live.
    const listed = await json(["list", "--dir", dir]);
    expect(listed.revisions.map((r: any) => r.preview)).toEqual([true, true, false]);
    const promoted = await json(["promote", preview.revisionId, "--dir", dir]);
    expect(promoted).toMatchObject({ revisionId: preview.revisionId, previousRevisionId: live.revisionId });
    expect(await page(live.productionUrl)).toEqual({ status: 200, body: "draft" });
  });

  it("promote: an unknown revision is REVISION_NOT_FOUND from the server, exit 1, production unchanged", async () => {
    const dir = await site("promote-unknown", "kept");
    const kept = await json([dir]);
    const run = await runInProcess(["promote", "zzzzzzzzzz", "--dir", dir, "--json"], bed.env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("REVISION_NOT_FOUND");
    expect(run.stderr).toContain("deploy list");
    expect(await page(kept.productionUrl)).toEqual({ status: 200, body: "kept" });
  });
});

describe("credential", () => {
  it("credential: DEPLOY_CREDENTIAL deploys to the project from another folder and another config folder, never written nor printed", async () => {
    const dir = await site("credential-site", "from the laptop");
    const first = await json([dir]);
    const made = await runInProcess(["credential", "--dir", dir], bed.env);
    expect(made.code).toBe(0);
    const credential = made.stdout.trim();
    expect(credential).toMatch(/^sdc1_[A-Za-z0-9_-]+$/);
    expect(made.stderr).toMatch(/keep it secret/);
    const token = Object.values(await storedProjects(bed.configDir)).find(
      (p) => p.projectSlug === first.projectSlug,
    )!.apiToken;

    // CI: a checkout somewhere else, a config folder of its own, no saved project.
    const ci = await site("ci-checkout", "from CI");
    const ciConfig = join(bed.dir, "ci-config");
    const env = { ...bed.env, DEPLOY_CONFIG_DIR: ciConfig, DEPLOY_CREDENTIAL: credential };
    const deployed = await runInProcess([ci, "--json"], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    const result = JSON.parse(deployed.stdout);
    expect(result.projectSlug).toBe(first.projectSlug);
    expect(result.productionUrl).toBe(first.productionUrl);
    expect(await page(first.productionUrl)).toEqual({ status: 200, body: "from CI" });
    // Every command acts on it from any folder: status from the filesystem root.
    const status = await runInProcess(["status", "--json"], env, "/");
    expect(JSON.parse(status.stdout)).toMatchObject({ projectSlug: first.projectSlug, revisions: 2 });
    const rolled = await runInProcess(["rollback", "--json"], env, "/");
    expect(JSON.parse(rolled.stdout).revisionId).toBe(first.revisionId);
    expect(await page(first.productionUrl)).toEqual({ status: 200, body: "from the laptop" });

    // Never printed back, never written to disk.
    const again = await runInProcess(["credential", "--json"], env);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout).error.code).toBe("CREDENTIAL_IN_USE");
    for (const run of [deployed, status, rolled, again]) {
      expect(run.stdout + run.stderr).not.toContain(credential);
      expect(run.stdout + run.stderr).not.toContain(token);
    }
    for (const name of await readdir(ciConfig, { recursive: true })) {
      const path = join(ciConfig, name);
      const text = await readFile(path, "utf8").catch(() => "");
      expect(text, name).not.toContain(token);
      expect(text, name).not.toContain(credential);
    }
    expect(await readdir(ciConfig)).not.toContain("projects");
  });

  it("credential: domain and delete act on DEPLOY_CREDENTIAL's project from any folder", async () => {
    const dir = await site("credential-domain", "domain via credential");
    const first = await json([dir]);
    const credential = (await runInProcess(["credential", "--dir", dir], bed.env)).stdout.trim();
    const env = {
      ...bed.env,
      DEPLOY_CONFIG_DIR: join(bed.dir, "domain-ci-config"),
      DEPLOY_CREDENTIAL: credential,
    };
    const hostname = `ci-${first.projectSlug.split("-").pop()}.localhost`;
    const assigned = await runInProcess(["domain", hostname, "--json"], env, "/");
    expect(assigned.code, assigned.stderr).toBe(0);
    expect(JSON.parse(assigned.stdout).project.hostname).toBe(hostname);
    const productionUrl = JSON.parse(assigned.stdout).project.productionUrl as string;
    expect(await page(productionUrl)).toEqual({ status: 200, body: "domain via credential" });
    const deleted = await runInProcess(["delete", "--yes", "--json"], env, "/");
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ projectSlug: first.projectSlug, deleted: true });
    expect((await page(productionUrl)).status).toBe(404);
  });

  it("credential: a malformed DEPLOY_CREDENTIAL is CREDENTIAL_INVALID and never echoed", async () => {
    const secret = "sdp_this-looks-like-a-pasted-token";
    const run = await runInProcess(["status", "--json"], { ...bed.env, DEPLOY_CREDENTIAL: secret });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("CREDENTIAL_INVALID");
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it("credential: a deleted project's credential is PROJECT_GONE; no new project is made", async () => {
    const dir = await site("credential-gone", "soon gone");
    await json([dir]);
    const credential = (await runInProcess(["credential", "--dir", dir], bed.env)).stdout.trim();
    await json(["delete", "--dir", dir, "--yes"]);
    const env = {
      ...bed.env,
      DEPLOY_CONFIG_DIR: join(bed.dir, "gone-config"),
      DEPLOY_CREDENTIAL: credential,
    };
    const run = await runInProcess([dir, "--json"], env);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("PROJECT_GONE");
    expect(run.stderr).not.toContain("Created project");
  });
});
