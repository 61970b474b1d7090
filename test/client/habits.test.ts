import { execFile } from "node:child_process";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/client/index.js";
import { COMMAND_FLAGS, COMMON_FLAGS, SUBCOMMANDS } from "../../src/client/cli/commands-list.js";
import { edgeGet, runInProcess, startTestBed, writeSite, type CliRun, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

/** A fresh site folder with an index page saying `text`. */
async function site(name: string, text: string): Promise<string> {
  const dir = join(bed.dir, name);
  await writeSite(dir, { "index.html": text });
  return dir;
}

/** Runs the client with --json and parses stdout; the run must succeed. */
async function json<T = any>(argv: string[], env: Record<string, string> = bed.env): Promise<T> {
  const run = await runInProcess([...argv, "--json"], env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** Runs the CLI in-process with stdout a terminal (stderr not one), as a person's shell does. */
async function runOnTerminal(argv: string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text), isTTY: true },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env,
    cwd: "/",
  });
  return { code, stdout, stderr };
}

/** A $BROWSER that records the URL it is given in `file` instead of opening anything. */
async function recordingBrowser(file: string): Promise<string> {
  const script = join(bed.dir, `browser-${Math.random().toString(36).slice(2)}.sh`);
  await writeFile(script, `#!/bin/sh\nprintf '%s' "$1" > '${file}'\n`);
  await chmod(script, 0o755);
  return script;
}

const page = async (url: string) => (await edgeGet(bed.server.urls.edge, url, "index.html")).body.toString();

describe("habits from other tools", () => {
  it("deploy --prod: deploys to production like a plain deploy, and notes that production is the default", async () => {
    const dir = await site("prod-site", "prod one");
    const run = await runInProcess([dir, "--prod"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("production is the default here");
    expect(run.stderr).toContain("--preview");
    const url = /Production: (\S+)/.exec(run.stdout)![1]!;
    expect(await page(url)).toBe("prod one");
    const deployed = await json([dir, "--prod"]);
    expect(deployed.preview).toBe(false);
  });

  it("deploy --prod --preview: a usage error that says which way each goes, nothing deployed", async () => {
    const dir = await site("prod-preview", "x");
    const run = await runInProcess([dir, "--prod", "--preview"], bed.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("give --prod or --preview, not both");
    expect(run.stderr).toContain("Production is the default");
  });

  it("login, logout, whoami: exit 0 saying there are no accounts and what identifies a project, not 'folder not found'", async () => {
    for (const command of ["login", "logout", "whoami"]) {
      const run = await runInProcess([command], bed.env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain("There are no accounts here");
      expect(run.stdout).toContain("DEPLOY_CREDENTIAL");
      expect(run.stderr).toBe("");
      const asJson = await json([command]);
      expect(asJson).toEqual({ accounts: false, message: expect.stringContaining("no accounts") });
    }
  });

  it("open: opens the production URL with $BROWSER, and with --preview the newest preview's revision URL", async () => {
    const dir = await site("open-site", "open me");
    const production = await json([dir]);
    const opened = join(bed.dir, "opened-url");
    const env = { ...bed.env, BROWSER: await recordingBrowser(opened) };
    const run = await runInProcess(["open", "--dir", dir], env);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(opened, "utf8")).toBe(production.productionUrl);
    expect(run.stdout).toBe(`Opened ${production.productionUrl}\n`);

    const noPreview = await runInProcess(["open", "--preview", "--dir", dir], env);
    expect(noPreview.code).toBe(1);
    expect(noPreview.stderr).toContain("has no preview");

    await writeSite(dir, { "index.html": "a preview" });
    const preview = await json(["--preview", dir]);
    const again = await runInProcess(["open", "--preview", "--dir", dir], env);
    expect(again.code, again.stderr).toBe(0);
    expect(await readFile(opened, "utf8")).toBe(preview.revisionUrl);
  });

  it("open: with --json, or BROWSER=none, or an opener that is missing, prints the URL and opens nothing", async () => {
    const dir = await site("open-print", "print me");
    const production = await json([dir]);
    const opened = join(bed.dir, "never-opened");
    const browser = await recordingBrowser(opened);
    const asJson = await json(["open", "--dir", dir], { ...bed.env, BROWSER: browser });
    expect(asJson).toEqual({
      projectSlug: production.projectSlug,
      url: production.productionUrl,
      preview: false,
      opened: false,
    });
    await expect(readFile(opened)).rejects.toThrow(/ENOENT/);
    for (const BROWSER of ["none", join(bed.dir, "no-such-browser")]) {
      const run = await runInProcess(["open", "--dir", dir], { ...bed.env, BROWSER });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`${production.productionUrl}\n`);
      expect(run.stderr).toContain("the URL is above");
    }
  });

  it("status: a pending custom domain is shown pending, and Production is the generated URL that serves now", async () => {
    const dir = await site("pending-site", "pending");
    const deployed = await json([dir]);
    const assigned = await runInProcess(["domain", "www.pending-example.com", "--dir", dir], bed.env);
    expect(assigned.code, assigned.stderr).toBe(0);
    const status = await runInProcess(["status", "--dir", dir], bed.env);
    expect(status.stdout).toContain(`Production: ${deployed.productionUrl}`);
    expect(status.stdout).not.toContain("Production: http://www.pending-example.com");
    expect(status.stdout).toMatch(/Domain: +www\.pending-example\.com \(pending: DNS does not prove it yet/);
    const asJson = await json(["status", "--dir", dir]);
    expect(asJson.customHostnameStatus).toBe("pending");
    const redeployed = await runInProcess([dir], bed.env);
    expect(redeployed.stdout).toContain(`Production: ${deployed.productionUrl}`);
    expect(redeployed.stdout).toContain("Domain:     www.pending-example.com (pending");
  });
});

describe("colour", () => {
  const ESC = "\u001b[";

  it("colour: on when stdout is a terminal, never with NO_COLOR, never when it is not a terminal", async () => {
    const dir = await site("colour-site", "colour");
    const onTerminal = await runOnTerminal([dir], bed.env);
    expect(onTerminal.code, onTerminal.stderr).toBe(0);
    expect(onTerminal.stdout).toContain(ESC);
    const status = await runOnTerminal(["status", "--dir", dir], bed.env);
    expect(status.stdout).toContain(ESC);

    const noColor = await runOnTerminal([dir], { ...bed.env, NO_COLOR: "1" });
    expect(noColor.code).toBe(0);
    expect(noColor.stdout).not.toContain(ESC);
    const noColorStatus = await runOnTerminal(["status", "--dir", dir], { ...bed.env, NO_COLOR: "1" });
    expect(noColorStatus.stdout).not.toContain(ESC);

    const piped = await runInProcess([dir], bed.env);
    expect(piped.stdout).not.toContain(ESC);
    expect(piped.stderr).not.toContain(ESC);
    const asJson = await runOnTerminal([dir, "--json"], bed.env);
    expect(asJson.stdout).not.toContain(ESC);
  });
});

describe("completion", () => {
  const commands = SUBCOMMANDS;
  const options = [...COMMON_FLAGS, ...Object.values(COMMAND_FLAGS).flat()].map((spec) => `--${spec.name}`);

  it("completion: bash, zsh and fish scripts name every command and every option", async () => {
    for (const shell of ["bash", "zsh", "fish"]) {
      const run = await runInProcess(["completion", shell], bed.env);
      expect(run.code, run.stderr).toBe(0);
      for (const command of commands)
        expect(run.stdout, `${shell}: ${command}`).toMatch(new RegExp(`\\b${command}\\b`));
      for (const option of options) {
        const spelled = shell === "fish" ? `-l ${option.slice(2)}` : option;
        expect(run.stdout, `${shell}: ${option}`).toContain(spelled);
      }
    }
  });

  it("completion bash: bash -n accepts it, and it completes commands, options and --dir's folders", async () => {
    const script = join(bed.dir, "deploy.bash");
    const run = await runInProcess(["completion", "bash"], bed.env);
    await writeFile(script, run.stdout);
    await bash(["-n", script]);
    const complete = (words: string[]) =>
      bash([
        "-c",
        `source '${script}'; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _deploy; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
    expect((await complete(["deploy", "sta"])).split("\n")).toContain("status");
    expect((await complete(["deploy", "completion", "z"])).trim()).toBe("zsh");
    expect((await complete(["deploy", "open", "--p"])).trim()).toBe("--preview");
    const deployOptions = (await complete(["deploy", "--"])).split("\n");
    expect(deployOptions).toEqual(expect.arrayContaining(["--prod", "--message", "--alias", "--preview"]));
    await writeSite(join(bed.dir, "completion-folder"), { "a.txt": "a" });
    expect((await complete(["deploy", "status", "--dir", join(bed.dir, "completion-fo")])).trim()).toBe(
      join(bed.dir, "completion-folder"),
    );
  });

  it("completion: an unknown shell is a usage error naming the three", async () => {
    const run = await runInProcess(["completion", "tcsh"], bed.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown shell "tcsh"');
    expect(run.stderr).toContain("bash|zsh|fish");
  });
});

function bash(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("bash", ["--norc", "--noprofile", ...args], { timeout: 10_000 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stderr}`)),
    );
  });
}
