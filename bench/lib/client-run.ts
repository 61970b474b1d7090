import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CLIENT_BIN } from "./paths.js";
import { runTimed } from "./proc.js";

/** One run of the `deploy` client as a child process. */
export interface ClientRun {
  wallMs: number;
  /** Peak resident memory of the client process in bytes (GNU time), when measurable. */
  peakRss: number | undefined;
  summary: {
    files: number;
    uploaded: number;
    bytesUploaded: number;
    revisionId: string;
    productionUrl: string;
  };
}

const GNU_TIME = "/usr/bin/time";

/**
 * Runs `node bin/deploy.js <dir> --json --api-url <api>` with its own config folder and times it
 * from spawn to exit. Under GNU time when present, which reports the child's peak memory.
 */
export async function runClient(options: {
  dir: string;
  apiUrl: string;
  configDir: string;
  scratch: string;
  nodeArgs?: string[];
}): Promise<ClientRun> {
  const rssFile = join(options.scratch, "client-rss.txt");
  rmSync(rssFile, { force: true });
  const node = [
    process.execPath,
    ...(options.nodeArgs ?? []),
    CLIENT_BIN,
    options.dir,
    "--json",
    "--api-url",
    options.apiUrl,
  ];
  const timed = existsSync(GNU_TIME);
  const [command, ...args] = timed ? [GNU_TIME, "-f", "%M", "-o", rssFile, ...node] : node;
  const run = await runTimed(command!, args, { env: { DEPLOY_CONFIG_DIR: options.configDir, CI: "1" } });
  if (run.code !== 0) throw new Error(`deploy exited ${run.code}:\n${run.stderr}\n${run.stdout}`);
  const kilobytes = timed ? Number(readFileSync(rssFile, "utf8").trim().split("\n").pop()) : NaN;
  return {
    wallMs: run.ms,
    peakRss: Number.isFinite(kilobytes) ? kilobytes * 1024 : undefined,
    summary: JSON.parse(run.stdout) as ClientRun["summary"],
  };
}
