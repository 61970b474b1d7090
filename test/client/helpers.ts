import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pino } from "pino";
import {
  type RunningProcess,
  type RunningServer,
  startProcess,
  startServer,
} from "../../src/server/start.js";
import { runCli } from "../../src/client/index.js";
import { type EdgeResponse, edgeGet as edgeRequest } from "../support/http.js";
import { canonicalPath } from "../support/site-paths.js";

type ServerOverrides = Parameters<typeof startServer>[0];

/** A real server on 127.0.0.1 (ports 0, temporary data dir, silent logs) and a scratch folder. */
export interface TestBed<S extends RunningProcess = RunningServer> {
  server: S;
  /** Scratch folder for sites and the client's config folder. */
  dir: string;
  configDir: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts a server running every role and a scratch folder; the env points the client at both. */
export function startTestBed(overrides: ServerOverrides = {}): Promise<TestBed> {
  return startBed((settings) => startServer({ ...settings, ...overrides }));
}

/**
 * Starts a process running the roles `overrides.roles` names (the API alone by default: what runs
 * with Cloudflare as the platform) and a scratch folder.
 */
export function startProcessBed(overrides: ServerOverrides = {}): Promise<TestBed<RunningProcess>> {
  return startBed((settings) => startProcess({ ...settings, roles: ["api"], ...overrides }));
}

async function startBed<S extends RunningProcess>(
  start: (settings: NonNullable<ServerOverrides>) => Promise<S>,
): Promise<TestBed<S>> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "client-e2e-")));
  const server = await start({
    host: "127.0.0.1",
    port: 0,
    uploadPort: 0,
    edgePort: 0,
    metricsPort: 0,
    sitesDomain: "localhost",
    dataDir: join(dir, "data"),
    createLimitPerAddress: 1000,
    createLimitPerFingerprint: 1000,
    // DNS goes to a closed port on loopback unless a test gives its own server.
    dnsResolver: "127.0.0.1:1",
    dnsTimeoutMs: 1000,
    logger: pino({ level: "silent" }),
  });
  const configDir = join(dir, "config");
  const env = {
    DEPLOY_API_URL: server.urls.api!,
    DEPLOY_CONFIG_DIR: configDir,
    DEPLOY_RETRY_BASE_MS: "20",
    PATH: process.env.PATH ?? "",
  };
  return {
    server,
    dir,
    configDir,
    env,
    async stop() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** What a CLI run left: exit status, stdout and stderr. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with runCli, capturing its output (stderr is not a terminal). */
export async function runInProcess(argv: string[], env: Record<string, string>, cwd = "/"): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text), isTTY: false },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env,
    cwd,
  });
  return { code, stdout, stderr };
}

export const BIN = new URL("../../bin/deploy.js", import.meta.url).pathname;

/** Runs the compiled `bin/deploy.js` as a child process. */
export function runBinary(argv: string[], env: Record<string, string>, cwd = "/"): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...argv], { env, cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Writes files (path inside the site → content) under `root`. */
export async function writeSite(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

/** The fixture of issue 3: nested folders, spaces, non-ASCII names, an empty file, a big file, duplicates. */
export function fixtureSite(): Record<string, string | Buffer> {
  return {
    "index.html": "<!doctype html><title>Fixture</title><h1>Hello</h1>",
    "404.html": "<h1>Not here</h1>",
    "css/site.css": "h1 { color: rebeccapurple; }",
    "docs/guide/deep/nested/page.html": "<p>deep</p>",
    "with space/file name.txt": "spaces in names",
    "ünïcödé/naïve café.txt": "non-ASCII names ✓",
    "日本語/ファイル.html": "<p>こんにちは</p>",
    "empty.txt": "",
    "media/big.bin": randomBytes(5 * 1024 * 1024 + 7),
    "copies/a.txt": "the same contents",
    "copies/b.txt": "the same contents",
    "copies/sub/c.txt": "the same contents",
  };
}

/** A response of the edge: status, headers, bytes. */
export type { EdgeResponse };

/**
 * GETs a site URL's path through the edge listener with its Host header, uncompressed; a site
 * file's path is asked for at its canonical URL (`about.html` at `/about`).
 */
export function edgeGet(edgeUrl: string, siteUrl: string, path: string): Promise<EdgeResponse> {
  return edgeRequest(edgeUrl, new URL(siteUrl).host, encodeURI(canonicalPath(`/${path}`)), {
    "accept-encoding": "identity",
  });
}

/** The client's stored project records (one file each under `projects/`), keyed by file name. */
export async function storedProjects(
  configDir: string,
): Promise<Record<string, { projectSlug: string; apiToken: string }>> {
  const folder = join(configDir, "projects");
  const names = await readdir(folder).catch(() => []);
  const projects: Record<string, { projectSlug: string; apiToken: string }> = {};
  for (const name of names.filter((file) => file.endsWith(".json"))) {
    const text = await readFile(join(folder, name), "utf8");
    projects[name] = (JSON.parse(text) as { record: { projectSlug: string; apiToken: string } }).record;
  }
  return projects;
}
