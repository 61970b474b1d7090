import { join } from "node:path";
import { BENCH_DIST } from "./paths.js";
import { startChild, stopChild, waitForPort } from "./proc.js";

/** A comparison server (sirv, or bare node:http) in its own process. */
export interface NodeServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a compiled comparison server (`servers/<name>.js`) on `port`, serving `root`. */
export async function startNodeServer(
  name: "sirv-server" | "bare-server",
  root: string,
  port: number,
  logFile: string,
): Promise<NodeServerProcess> {
  const script = join(BENCH_DIST, "servers", `${name}.js`);
  const child = startChild(process.execPath, [script, root, String(port)], { logFile });
  try {
    await waitForPort(port);
  } catch (error) {
    await stopChild(child, "SIGKILL");
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child, "SIGKILL") };
}
