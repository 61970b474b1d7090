import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/client/index.js";
import { edgeGet, runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

/** An app's root as a newcomer has it: sources, a package.json, a repository, a built dist/. */
async function appRoot(name: string): Promise<string> {
  const root = join(bed.dir, name);
  await writeSite(root, {
    "package.json": '{"name":"app"}',
    "src/main.js": "console.log('source')",
    "dist/index.html": "<h1>built</h1>",
    ".git/HEAD": "ref: refs/heads/main\n",
  });
  return root;
}

/** Runs the CLI in-process as on a terminal, answering `answer` once a question is asked. */
async function onTerminal(argv: string[], answer: string, cwd = "/") {
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let stderr = "";
  let stdout = "";
  const code = await runCli(argv, {
    stdin,
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: {
      write: (chunk: string) => {
        stderr += chunk;
        if (chunk.includes("[y/N]")) stdin.write(answer);
      },
      isTTY: true,
    },
    env: bed.env,
    cwd,
  });
  return { code, stdout, stderr };
}

const slugs = async () => Object.values(await storedProjects(bed.configDir)).map((p) => p.projectSlug);

describe("deploying a project's source by accident", () => {
  it("deploy: a project root is refused off a terminal, naming dist/, and nothing is created; --yes deploys it", async () => {
    const root = await appRoot("app-refused");
    const before = await slugs();
    const refused = await runInProcess(["--json"], bed.env, root);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe("SOURCE_FOLDER");
    expect(refused.stderr).toContain(
      "it has a package.json, a .git (it is a repository's root) and no index.html",
    );
    expect(refused.stderr).toContain("`deploy ./dist`");
    expect(refused.stderr).toContain("--yes");
    expect(await slugs()).toEqual(before);

    const accepted = await runInProcess(["--yes", "--json"], bed.env, root);
    expect(accepted.code, accepted.stderr).toBe(0);
    const result = JSON.parse(accepted.stdout);
    const served = await edgeGet(bed.server.urls.edge, result.productionUrl, "package.json");
    expect(served.status).toBe(200);
    // The yes is remembered in the folder's project file: the next deploy does not ask again.
    const again = await runInProcess(["--json"], bed.env, root);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).projectSlug).toBe(result.projectSlug);
  });

  it("deploy: a folder without index.html whose build/ has one is refused and names build/", async () => {
    const root = join(bed.dir, "no-index");
    await writeSite(root, { "README.md": "# app", "build/index.html": "<h1>built</h1>" });
    const refused = await runInProcess([root], bed.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("no index.html, while build/ has one");
    expect(refused.stderr).toContain(join(root, "build"));
  });

  it("deploy: on a terminal a project root is asked about: no cancels, yes deploys", async () => {
    const root = await appRoot("app-asked");
    const before = await slugs();
    const no = await onTerminal([], "n\n", root);
    expect(no.code).toBe(1);
    expect(no.stderr).toContain("looks like a project's source");
    expect(no.stderr).toContain("deploy ./dist");
    expect(no.stderr).toContain("deploy cancelled; nothing was deployed");
    expect(await slugs()).toEqual(before);

    const yes = await onTerminal([], "y\n", root);
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.stdout).toContain("Deployed ");
    // The yes is remembered: off a terminal, the next deploy goes ahead without asking.
    const next = await runInProcess([], bed.env, root);
    expect(next.code, next.stderr).toBe(0);
  });

  it("deploy: a built folder inside the repository is deployed without a question", async () => {
    const root = await appRoot("app-dist");
    const run = await runInProcess(["./dist", "--json"], bed.env, root);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.files).toBe(1);
  });
});

describe("files a .gitignore ignores", () => {
  it("deploy: a gitignored secret answers 404 at the edge, .deployignore brings one file back, and the summary counts them", async () => {
    const root = join(bed.dir, "gitignored");
    await writeSite(root, {
      "index.html": "<h1>site</h1>",
      ".gitignore": "secrets.json\n*.log\n",
      "secrets.json": '{"key":"sk_live_123"}',
      "debug.log": "noise",
      "changelog.log": "wanted",
      ".deployignore": "!changelog.log\n",
    });
    const run = await runInProcess([root, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.skippedGitignored.sort()).toEqual(["debug.log", "secrets.json"]);
    expect(run.stderr).toMatch(/^Skipped 2 paths a \.gitignore ignores: /m);
    const edge = bed.server.urls.edge;
    expect((await edgeGet(edge, result.productionUrl, "secrets.json")).status).toBe(404);
    expect((await edgeGet(edge, result.productionUrl, "debug.log")).status).toBe(404);
    const wanted = await edgeGet(edge, result.productionUrl, "changelog.log");
    expect(wanted.body.toString()).toBe("wanted");

    const text = await runInProcess([root], bed.env);
    expect(text.stdout).toMatch(/^ {2}Skipped: {4}2 ignored by \.gitignore, 1 dotfiles \(not deployed\)$/m);
  });

  it("deploy: a parent's .gitignore in the same repository keeps a secret out of dist/, though it ignores dist/", async () => {
    const root = join(bed.dir, "repo-parent");
    await writeSite(root, {
      ".git/HEAD": "ref: refs/heads/main\n",
      ".gitignore": "dist/\n.env.json\n",
      "dist/index.html": "<h1>built</h1>",
      "dist/.env.json": "{}",
    });
    const run = await runInProcess([join(root, "dist"), "--json", "--include-dotfiles"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.skippedGitignored).toEqual([".env.json"]);
    expect((await edgeGet(bed.server.urls.edge, result.productionUrl, ".env.json")).status).toBe(404);
  });
});
