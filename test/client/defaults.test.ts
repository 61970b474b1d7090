import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helpText } from "../../src/client/cli/help.js";
import { defaultRetryPolicy } from "../../src/client/net/retry.js";
import { DEFAULTS, readSettings } from "../../src/client/settings.js";
import { projectHashOf } from "../../src/client/local/identity.js";
import { edgeGet, runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

describe("dotfiles", () => {
  it("deploy: dotfiles and dot-folders are skipped but .well-known/, named in one line; .env answers 404", async () => {
    const dir = join(bed.dir, "dotfiles");
    await writeSite(dir, {
      "index.html": "home",
      ".env": "SECRET=hunter2",
      ".cache/state.json": "{}",
      ".well-known/security.txt": "Contact: mailto:security@example.com",
    });
    const run = await runInProcess([dir, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.files).toBe(2);
    expect(result.skippedDotfiles.sort()).toEqual([".cache/", ".env"]);
    const lines = run.stderr.split("\n").filter((line) => line.startsWith("Skipped"));
    expect(lines).toEqual([
      expect.stringMatching(/^Skipped 2 dotfiles: (\.env, \.cache\/|\.cache\/, \.env) \(--include-dotfiles/),
    ]);
    expect((await edgeGet(bed.server.urls.edge, result.productionUrl, ".env")).status).toBe(404);
    const wellKnown = await edgeGet(bed.server.urls.edge, result.productionUrl, ".well-known/security.txt");
    expect(wellKnown.status).toBe(200);
  });

  it("deploy: --include-dotfiles deploys them, and no line says any was skipped", async () => {
    const dir = join(bed.dir, "dotfiles-included");
    await writeSite(dir, { "index.html": "home", ".htaccess": "Deny from all" });
    const run = await runInProcess([dir, "--include-dotfiles", "--json"], bed.env);
    const result = JSON.parse(run.stdout);
    expect(result.files).toBe(2);
    expect(result.skippedDotfiles).toBeUndefined();
    expect(run.stderr).not.toContain("Skipped");
    const served = await edgeGet(bed.server.urls.edge, result.productionUrl, ".htaccess");
    expect(served.body.toString()).toBe("Deny from all");
  });
});

describe("hash cache and identical files", () => {
  it("deploy: the very next deploy reads no file again when files were written half a second before the first", async () => {
    const dir = join(bed.dir, "cache-next");
    await writeSite(dir, { "index.html": "a", "b.txt": "b", "c.txt": "c" });
    // Half a second old, with a sub-second part: the old 2 s window would have cached none of them.
    const halfSecondAgo = (Date.now() - 500.5) / 1000;
    for (const name of ["index.html", "b.txt", "c.txt"])
      await utimes(join(dir, name), halfSecondAgo, halfSecondAgo);
    const first = await runInProcess([dir], bed.env);
    expect(first.stderr).toMatch(/^Hashed 3 files/m);
    const second = await runInProcess([dir], bed.env);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/^3 files \(3 B\) unchanged since the last deploy: none read again$/m);
  });

  it("deploy: identical files are counted as such in the report", async () => {
    const dir = join(bed.dir, "identical");
    await writeSite(dir, { "index.html": "same", "copy.html": "same", "other.html": "other" });
    const run = await runInProcess([dir], bed.env);
    expect(run.stdout).toMatch(
      /Files: +3 total: 2 uploaded, 1 identical to another file, 0 already on the server/,
    );
  });
});

describe("one run at a time per folder", () => {
  it("deploy: two first runs at once on one folder make one project; the second waits for the first", async () => {
    const dir = join(bed.dir, "two-at-once");
    await writeSite(dir, { "index.html": "once" });
    const env = { ...bed.env, DEPLOY_CONFIG_DIR: join(bed.dir, "two-at-once-config") };
    const [a, b] = await Promise.all([
      runInProcess([dir, "--json"], env),
      runInProcess([dir, "--json"], env),
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(a.stdout).projectSlug).toBe(JSON.parse(b.stdout).projectSlug);
    expect(Object.keys(await storedProjects(env.DEPLOY_CONFIG_DIR))).toHaveLength(1);
    expect(a.stderr + b.stderr).toMatch(/Waiting for another run \(pid \d+, since .*\) on .* to finish/);
  });

  it("deploy: a live run's lock makes another give up with LOCKED after DEPLOY_LOCK_WAIT_SECONDS; a dead run's lock is taken over", async () => {
    const dir = join(bed.dir, "locked");
    await writeSite(dir, { "index.html": "locked" });
    const config = join(bed.dir, "locked-config");
    const lock = join(config, "locks", `${projectHashOf(dir)}.lock`);
    await mkdir(join(config, "locks"), { recursive: true });
    // This very process is alive: its lock holds.
    await writeFile(lock, JSON.stringify({ pid: process.pid, startedAt: "2026-01-01T00:00:00Z", dir }));
    const env = { ...bed.env, DEPLOY_CONFIG_DIR: config, DEPLOY_LOCK_WAIT_SECONDS: "0" };
    const held = await runInProcess([dir, "--json"], env);
    expect(held.code).toBe(1);
    expect(JSON.parse(held.stdout).error).toEqual({
      code: "LOCKED",
      message: expect.stringContaining(`another run (pid ${process.pid}`),
    });
    expect(held.stderr).toContain(lock);
    // A pid no process has (above the kernel's pid_max): the run that held it died.
    await writeFile(lock, JSON.stringify({ pid: 2 ** 22 + 1, startedAt: "2026-01-01T00:00:00Z", dir }));
    const taken = await runInProcess([dir, "--json"], env);
    expect(taken.code, taken.stderr).toBe(0);
  });
});

describe("messages", () => {
  it("deploy: a mistyped command gets a did-you-mean, exit 2; with --json as the error object", async () => {
    const run = await runInProcess(["stauts", "--json"], bed.env, bed.dir);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: "USAGE", message: 'unknown command "stauts" (and no folder of that name)' },
    });
    expect(run.stderr).toContain("Did you mean `deploy status`?");
  });

  it("deploy: a mistyped option gets a did-you-mean, exit 2; --json failures are one object on stdout", async () => {
    const run = await runInProcess(["--previw", "--json"], bed.env, bed.dir);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: "USAGE", message: 'unknown option --previw for "deploy"' },
    });
    expect(run.stderr).toContain("Did you mean --preview?");
  });

  it("deploy --help: every default it states is the one the client uses", () => {
    const text = helpText(undefined);
    const settings = readSettings({});
    const retry = defaultRetryPolicy();
    const stated = (name: string) => {
      const match = new RegExp(`${name}\\s[^(]*?\\(default (\\d+)`).exec(text.replace(/\n\s+/g, " "));
      expect(match, name).not.toBeNull();
      return Number(match![1]);
    };
    expect(stated("DEPLOY_MAX_FILES")).toBe(settings.maxFiles);
    expect(stated("DEPLOY_MAX_FILE_BYTES")).toBe(settings.maxFileBytes);
    expect(stated("DEPLOY_UPLOAD_CONCURRENCY")).toBe(settings.uploadConcurrency);
    expect(stated("DEPLOY_HASH_THREAD_MIN_FILES")).toBe(settings.hashThreadMinFiles);
    expect(stated("DEPLOY_RETRY_BASE_MS")).toBe(retry.baseMs);
    expect(stated("DEPLOY_MAX_ATTEMPTS")).toBe(retry.maxAttempts);
    expect(stated("DEPLOY_LOCK_WAIT_SECONDS")).toBe(settings.lockWaitSeconds);
    expect(text).toContain(`at most ${retry.maxRefusedAttempts} when the connection is refused`);
    expect(text).toContain(`one per core, at most ${DEFAULTS.maxHashThreads})`);
    expect(settings.hashThreads).toBeLessThanOrEqual(DEFAULTS.maxHashThreads);
  });

  it("deploy --help: lists the error codes the client gives", () => {
    const text = helpText(undefined);
    for (const code of [
      "USAGE",
      "NO_PROJECT",
      "LOCKED",
      "CREDENTIAL_INVALID",
      "NO_PREVIOUS_REVISION",
      "NETWORK",
    ]) {
      expect(text).toContain(code);
    }
  });
});
