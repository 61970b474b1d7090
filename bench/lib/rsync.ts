import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, runTimed, startChild, stopChild, waitForPort } from "./proc.js";

/** A local rsync daemon of the bench's own, with one writable module. */
export interface RsyncDaemon {
  /** `rsync://127.0.0.1:<port>/site/`: the module's root. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `rsync --daemon` on a free loopback port, in the foreground, serving `dest` as the
 * writable module `site`: the reference for "send what changed" over a socket, as a deploy does.
 */
export async function startRsyncDaemon(dest: string, workDir: string): Promise<RsyncDaemon> {
  mkdirSync(dest, { recursive: true });
  mkdirSync(workDir, { recursive: true });
  const port = await freePort();
  const config = join(workDir, "rsyncd.conf");
  writeFileSync(
    config,
    `use chroot = no
pid file = ${join(workDir, "rsyncd.pid")}
[site]
  path = ${dest}
  read only = no
  uid = root
  gid = root
`,
  );
  const child = startChild(
    "rsync",
    ["--daemon", "--no-detach", `--address=127.0.0.1`, `--port=${port}`, `--config=${config}`],
    { logFile: join(workDir, "rsyncd.log") },
  );
  try {
    await waitForPort(port);
  } catch (error) {
    await stopChild(child, "SIGKILL");
    throw error;
  }
  return { url: `rsync://127.0.0.1:${port}/site/`, stop: () => stopChild(child, "SIGTERM") };
}

/** `rsync -a <from>/ <daemon>`: every file compared by size and time, and what differs sent. */
export async function rsyncTo(from: string, daemon: RsyncDaemon): Promise<number> {
  const run = await runTimed("rsync", ["-a", `${from}/`, daemon.url]);
  if (run.code !== 0) throw new Error(`rsync failed: ${run.stderr}`);
  return run.ms;
}
