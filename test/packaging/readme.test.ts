import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeGet } from "../client/helpers.js";

/**
 * The README's first screen, run as written in a fresh copy of the repository: the install-and-start
 * command (`npm ci --omit=dev && npm start`: the production install, from the npm registry), then
 * the first deploy's commands against that server, then the moved-folder commands of "Know this
 * first". Not run here: the install-and-test command (`npm ci && npm test`), a full install of 500
 * packages and the whole suite, which is what CI's `.ci/run` runs (the first case holds them equal).
 *
 * As written, except for the environment: the ports are free ones (8787, 8788 and 8080 may be taken
 * by another server on this machine), the client's config folder is a temporary one, and npm's cache
 * is this machine's, with better-sqlite3's prebuilt binary (the one this checkout built) where
 * prebuild-install looks for a download: GitHub, where it downloads from, may be unreachable, and
 * compiling it takes minutes. Skipped, saying so, when the npm registry does not answer.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
/** npm's settings from the `npm test` that runs us must not leak into the commands. */
const BASE_ENV = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")),
) as Record<string, string>;

/** The lines of the README's `sh` code blocks, in order, each block as written. */
function shellBlocks(markdown: string): string[][] {
  return [...markdown.matchAll(/^ *```sh\n([\s\S]*?)^ *```/gm)].map((match) =>
    match[1]!
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== ""),
  );
}

/** A line without its trailing comment. */
function command(line: string): string {
  return line.replace(/\s+#.*$/, "");
}

const blocks = shellBlocks(README);
const [opening, firstDeploy] = blocks;
const moved = blocks.find((block) => block.some((line) => line.includes("DEPLOY_CREDENTIAL=")));

function registryAnswers(): boolean {
  const ping = spawnSync("npm", ["ping"], { env: BASE_ENV, encoding: "utf8", timeout: 30_000 });
  if (ping.status === 0) return true;
  console.warn(`test/packaging/readme.test.ts: skipped, the npm registry does not answer:\n${ping.stderr}`);
  return false;
}

describe("README: the opening commands", () => {
  it("README: opens with the install-and-start and the install-and-test commands, and .ci/run runs the second as written", () => {
    // The title, then the two commands before anything else.
    expect(README.split("\n").slice(0, 3)).toEqual(["# static-deploy", "", "```sh"]);
    expect(opening).toHaveLength(2);
    const [start, test] = opening!.map(command);
    expect(start).toMatch(/^npm ci --omit=dev && npm start$/);
    expect(test).toBe("npm ci && npm test");
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8").split("\n");
    expect(ci).toContain(test);
  });
});

describe.skipIf(!registryAnswers())("README's first screen, run as written in a fresh copy", () => {
  let scratch: string;
  let copy: string;
  let env: Record<string, string>;
  let server: { child: ChildProcess; output: () => string; urls: Record<string, string> } | undefined;
  let installSeconds: number;
  let seededPrebuild = false;

  /** Runs a README line with bash in the copy, to its end. */
  function shell(line: string, extra: Record<string, string> = {}) {
    return spawnSync("bash", ["-c", line], {
      cwd: copy,
      env: { ...env, ...extra },
      encoding: "utf8",
      timeout: 120_000,
    });
  }

  /** Starts a README line that ends in a server; resolves once its three listeners are up. */
  function startServer(line: string, timeoutMs: number): Promise<NonNullable<typeof server>> {
    const child = spawn("bash", ["-c", line], { cwd: copy, env, detached: true });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no listeners after ${timeoutMs} ms:\n${output}`)),
        timeoutMs,
      );
      const check = () => {
        const urls: Record<string, string> = {};
        for (const role of ["api", "upload", "edge"]) {
          const url = new RegExp(`^${role}\\s+listening on (http://\\S+)`, "m").exec(output)?.[1];
          if (url !== undefined) urls[role] = url;
        }
        if (Object.keys(urls).length === 3) {
          clearTimeout(timer);
          resolve({ child, output: () => output, urls });
        }
      };
      child.stdout!.on("data", check);
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`exited (${code}) before listening:\n${output}`));
      });
    });
  }

  /** Stops the server and the npm and bash processes above it (its process group). */
  async function stopServer(): Promise<void> {
    if (server === undefined) return;
    const { child } = server;
    server = undefined;
    const gone = new Promise((resolve) => child.once("exit", resolve));
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      return;
    }
    await gone;
  }

  const stampTime = () => statSync(join(copy, "dist/.build-stamp")).mtimeMs;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "readme-first-screen-"));
    copy = join(scratch, "repo");
    const listed = spawnSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    for (const path of listed.stdout.split("\0")) {
      if (path !== "" && existsSync(join(ROOT, path))) cpSync(join(ROOT, path), join(copy, path));
    }
    // npm's cache: this machine's content, plus better-sqlite3's binary where prebuild-install
    // looks before downloading (`_prebuilds/<digest of the URL>-<file>`).
    const cache = join(scratch, "npm-cache");
    mkdirSync(join(cache, "_prebuilds"), { recursive: true });
    const machineCache = spawnSync("npm", ["config", "get", "cache"], {
      env: BASE_ENV,
      encoding: "utf8",
    }).stdout.trim();
    symlinkSync(join(machineCache, "_cacache"), join(cache, "_cacache"));
    const sqlite = join(ROOT, "node_modules/better-sqlite3");
    const { version } = JSON.parse(readFileSync(join(sqlite, "package.json"), "utf8")) as { version: string };
    if (existsSync(join(sqlite, "build/Release/better_sqlite3.node"))) {
      const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
      const url = `https://github.com/WiseLibs/better-sqlite3/releases/download/v${version}/${file}`;
      const digest = createHash("sha512").update(url).digest("hex").slice(0, 6);
      const tar = spawnSync(
        "tar",
        ["-czf", join(cache, "_prebuilds", `${digest}-${file}`), "build/Release/better_sqlite3.node"],
        { cwd: sqlite },
      );
      expect(tar.status).toBe(0);
      seededPrebuild = true;
    }
    env = {
      ...BASE_ENV,
      npm_config_cache: cache,
      npm_config_prefer_offline: "true",
      PORT: "0",
      UPLOAD_PORT: "0",
      EDGE_PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
      DNS_RESOLVER: "127.0.0.1:1",
      DEPLOY_CONFIG_DIR: join(scratch, "client-config"),
    };
    const started = performance.now();
    server = await startServer(opening![0]!, 900_000);
    installSeconds = (performance.now() - started) / 1000;
    env.DEPLOY_API_URL = server.urls.api!;
  }, 960_000);

  afterAll(async () => {
    await stopServer();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("npm ci --omit=dev && npm start: installs no devDependency, settles every install script, builds dist/ and serves", () => {
    console.info(`README's install-and-start: ${installSeconds.toFixed(1)} s to the listeners`);
    for (const dev of ["typescript", "vitest", "eslint", "miniflare"]) {
      expect(existsSync(join(copy, "node_modules", dev)), dev).toBe(false);
    }
    const sqlite = join(copy, "node_modules/better-sqlite3/build/Release");
    expect(existsSync(join(sqlite, "better_sqlite3.node"))).toBe(true);
    // The seeded binary was found and no compiler ran; else this test takes minutes more.
    if (seededPrebuild) expect(existsSync(join(sqlite, "obj.target")), "better-sqlite3 compiled").toBe(false);
    expect(existsSync(join(copy, "dist/server/main.js"))).toBe(true);
    expect(server!.output()).not.toContain("allowScripts");
    expect(server!.output()).not.toMatch(/npm (warn|error)/);
  });

  it("first deploy: the README's commands, run as written, put my-site live", async () => {
    expect(firstDeploy).toEqual([
      "mkdir -p my-site && echo '<h1>Hello</h1>' > my-site/index.html",
      "./bin/deploy.js my-site",
    ]);
    for (const line of firstDeploy!) {
      const result = shell(line);
      expect(result.status, `${line}\n${result.stderr}`).toBe(0);
      if (line.startsWith("./bin/deploy.js")) {
        const production = /Production:\s+(\S+)/.exec(result.stdout)?.[1];
        expect(production, result.stdout).toBeDefined();
        const served = await edgeGet(server!.urls.edge!, production!, "index.html");
        expect(served.status).toBe(200);
        expect(served.body.toString().trim()).toBe("<h1>Hello</h1>");
      }
    }
  });

  it("a moved folder: the README's commands deploy the new place to the old project", () => {
    expect(moved).toBeDefined();
    const status = (dir: string) => JSON.parse(shell(`./bin/deploy.js status --dir ${dir} --json`).stdout);
    const before = status("my-site");
    const result = shell(moved!.join("\n"));
    expect(result.status, result.stderr).toBe(0);
    // The old project, which already serves these files; no new one.
    expect(result.stdout).toContain(`No changes: ${before.projectSlug} already serves these files`);
    expect(result.stderr).not.toContain("Created project");
    expect(existsSync(join(copy, "my-site"))).toBe(false);
  });

  it("npm start again: serves without compiling; after a change to src/, compiles once", async () => {
    const start = opening![0]!.split("&&").at(-1)!.replace(/#.*$/, "").trim();
    expect(start).toBe("npm start");
    await stopServer();
    const built = stampTime();
    server = await startServer(start, 120_000);
    expect(stampTime()).toBe(built);
    expect(server.output()).not.toContain("compiled");
    await stopServer();
    const source = join(copy, "src/server/main.ts");
    const now = new Date();
    utimesSync(source, now, now);
    server = await startServer(start, 120_000);
    expect(stampTime()).toBeGreaterThan(built);
    expect(server.output()).toContain("src/ changed since the last build");
  });
});
