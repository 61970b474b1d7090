import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The server binary as `npm start` runs it. */
export const SERVER_ENTRY = join(ROOT, "dist/server/main.js");

/** The URLs of a process running every role. */
export type AllUrls = { api: string; upload: string; edge: string; ops: string };
/** The URLs of a process running the roles ROLES names: the others are absent. */
export type RoleUrls = Partial<Omit<AllUrls, "ops">> & { ops: string };

/** The real server binary running as a child process. */
export interface ServerProcess<Urls = AllUrls> {
  child: ChildProcess;
  pid: number;
  urls: Urls;
  dataDir: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends SIGKILL and waits for the process to be gone. */
  kill(): Promise<void>;
  /** Sends SIGTERM (graceful stop) and waits; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Resident set size of the process in bytes, from /proc. */
  rss(): number;
}

/**
 * Starts `node dist/server/main.js` on `dataDir` with free ports and the given environment, and
 * resolves once its `listening on` lines (api, upload, edge, ops) are out.
 */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string> = {},
  options: { startTimeoutMs?: number } = {},
): Promise<ServerProcess> {
  const started = await spawnProcess(dataDir, { ...env, ROLES: "api,upload,edge" }, options);
  const { api, upload, edge, ops } = started.urls;
  return { ...started, urls: { api: api!, upload: upload!, edge: edge!, ops } };
}

/**
 * Starts the binary with the roles `env.ROLES` names (all by default) and resolves once the
 * `listening on` lines of those roles and of the operator listener are out.
 */
export async function spawnProcess(
  dataDir: string,
  env: Record<string, string> = {},
  options: { startTimeoutMs?: number } = {},
): Promise<ServerProcess<RoleUrls>> {
  const roles = (env.ROLES ?? "api,upload,edge").split(",").map((role) => role.trim());
  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      UPLOAD_PORT: "0",
      EDGE_PORT: "0",
      METRICS_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "warn",
      // No test reaches the outside: DNS goes to a closed port on loopback unless a test says.
      DNS_RESOLVER: "127.0.0.1:1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A test that fails or times out must not leave its server running: kill it with the worker.
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const urls = await new Promise<RoleUrls>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within the time limit:\n${output}`));
    }, options.startTimeoutMs ?? 15_000);
    const check = () => {
      const found = (name: string) =>
        new RegExp(`^${name}\\s+listening on (http://\\S+)`, "m").exec(output)?.[1];
      const ops = found("ops");
      // The operator listener's line comes last: by then every role's line is out.
      if (ops) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        const [api, upload, edge] = ["api", "upload", "edge"].map((role) =>
          roles.includes(role) ? found(role) : undefined,
        );
        resolve({ api, upload, edge, ops });
      }
    };
    child.stdout!.on("data", check);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  const gone = async () => {
    await exited;
  };
  return {
    child,
    pid: child.pid!,
    urls,
    dataDir,
    output: () => output,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await gone();
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await gone();
      clearTimeout(timer);
    },
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kib = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
      return kib * 1024;
    },
  };
}
