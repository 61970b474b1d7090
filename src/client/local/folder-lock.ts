import { rm } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createPrivateFile, readJsonFile } from "./config-dir.js";
import { CliError } from "../errors.js";

/** Who holds a folder's lock. */
interface LockHolder {
  pid: number;
  startedAt: string;
  dir: string;
}

const POLL_MS = 100;

/**
 * Takes the lock of one site folder (a file in the config folder, created exclusively), so that
 * one run at a time acts on it: two first deploys at once would otherwise create two projects.
 * While another live run holds it, waits (saying so once) up to `waitSeconds`, then gives up with
 * LOCKED saying who holds it. A lock left by a run that died (its process is gone) is taken over.
 * Returns the release.
 */
export async function lockFolder(options: {
  configDir: string;
  /** The folder's projectHash: one lock per folder. */
  key: string;
  dir: string;
  waitSeconds: number;
  onWait: (message: string) => void;
}): Promise<() => Promise<void>> {
  const path = join(options.configDir, "locks", `${options.key}.lock`);
  const me: LockHolder = { pid: process.pid, startedAt: new Date().toISOString(), dir: options.dir };
  const deadline = Date.now() + options.waitSeconds * 1000;
  let told = false;
  for (;;) {
    if (await createPrivateFile(path, `${JSON.stringify(me)}\n`)) {
      return () => rm(path, { force: true });
    }
    const holder = await readHolder(path);
    if (holder !== undefined && !isAlive(holder.pid)) {
      // Its run died (a kill, a crash): nobody will remove it.
      await rm(path, { force: true });
      continue;
    }
    const who =
      holder === undefined ? "another run" : `another run (pid ${holder.pid}, since ${holder.startedAt})`;
    if (Date.now() >= deadline) {
      throw new CliError(
        "LOCKED",
        `${who} is acting on ${options.dir}; gave up waiting after ${options.waitSeconds} s`,
        `Run again once it is done. If no such run is going on, remove ${path}.`,
      );
    }
    if (!told) {
      options.onWait(`Waiting for ${who} on ${options.dir} to finish…`);
      told = true;
    }
    await delay(POLL_MS);
  }
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    const data = (await readJsonFile(path)) as Partial<LockHolder> | undefined;
    if (data && typeof data.pid === "number" && typeof data.startedAt === "string") {
      return { pid: data.pid, startedAt: data.startedAt, dir: String(data.dir ?? "") };
    }
  } catch {
    // Half written by a run that is creating it right now, or unreadable: treated as held.
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
