import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { SERVER_MAIN } from "./paths.js";
import { peakRssBytes, resetPeakRss, sleep, startChild, stopChild, type Child } from "./proc.js";

/** The deploy server running as its own process, as `deploy-server` runs it. */
export interface ServerProcess {
  urls: { api: string; upload: string; edge: string };
  pid: number;
  dataDir: string;
  logFile: string;
  /** Peak resident memory since start or the last `resetPeak`, in bytes. */
  peakRss(): number | undefined;
  resetPeak(): void;
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  dataDir: string;
  /** Extra environment (limits, log level); ports are always picked free. */
  env?: Record<string, string>;
  /** Node flags before the script, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
}

/** The storage quotas and the free-space guard, off: the API bench's manifests declare gigabytes it never uploads. */
export const STORAGE_LIMITS_OFF = {
  PROJECT_QUOTA_BYTES: "0",
  PENDING_QUOTA_BYTES: "0",
  CLIENT_QUOTA_BYTES: "0",
  MIN_FREE_BYTES: "0",
};

/** The node flags `deploy-server` starts with (SERVER_NODE_FLAGS in src/server/heap-growth.ts). */
const SERVER_NODE_FLAGS = ["--max-semi-space-size=4"];

let starts = 0;
const LISTENING = /^(api|upload|edge)\s+listening on (http:\/\/\S+)/gm;

/** Starts `node --max-semi-space-size=4 dist/server/main.js`, as `deploy-server` runs, on free ports with a fresh DATA_DIR; its log goes to a file. */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  mkdirSync(options.dataDir, { recursive: true });
  // One log per start: a server restarted on the same data must not be read from the last one's log.
  const logFile = `${options.dataDir}.${++starts}.log`;
  const child = startChild(
    process.execPath,
    [...SERVER_NODE_FLAGS, ...(options.nodeArgs ?? []), SERVER_MAIN],
    {
      env: {
        HOST: "127.0.0.1",
        PORT: "0",
        UPLOAD_PORT: "0",
        EDGE_PORT: "0",
        METRICS_PORT: "0",
        SITES_DOMAIN: "localhost",
        DATA_DIR: options.dataDir,
        ...options.env,
      },
      logFile,
    },
  );
  const urls = await waitForUrls(child, logFile);
  return {
    urls,
    pid: child.pid,
    dataDir: options.dataDir,
    logFile,
    peakRss: () => peakRssBytes(child.pid),
    resetPeak: () => void resetPeakRss(child.pid),
    // SIGTERM lets the server finish requests and exit, which also writes a --cpu-prof profile.
    stop: () => stopChild(child, "SIGTERM"),
  };
}

async function waitForUrls(child: Child, logFile: string): Promise<ServerProcess["urls"]> {
  const deadline = Date.now() + 20_000;
  let exited = false;
  void child.exited.then(() => (exited = true));
  for (;;) {
    const text = existsSync(logFile) ? readFileSync(logFile, "utf8") : "";
    const found = new Map([...text.matchAll(LISTENING)].map((match) => [match[1]!, match[2]!]));
    const [api, upload, edge] = [found.get("api"), found.get("upload"), found.get("edge")];
    if (api && upload && edge) return { api, upload, edge };
    if (exited || Date.now() > deadline) {
      await stopChild(child, "SIGKILL");
      throw new Error(`the deploy server did not start; its log (${logFile}):\n${text.slice(-2000)}`);
    }
    await sleep(20);
  }
}
