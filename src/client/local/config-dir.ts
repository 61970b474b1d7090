import { randomBytes } from "node:crypto";
import { chmod, link, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "../errors.js";

/** The user's config folder: DEPLOY_CONFIG_DIR, else $XDG_CONFIG_HOME/static-deploy, else ~/.config/static-deploy. */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.DEPLOY_CONFIG_DIR) return env.DEPLOY_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "static-deploy");
}

/** Creates a folder (and its parents) readable by the user only. */
async function ensurePrivateDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new CliError("CONFIG", `cannot create the config folder ${path}: ${(error as Error).message}`);
  }
}

/** A config file that exists but cannot be used: named, and never overwritten (it may hold tokens). */
export function invalidConfigFile(path: string, problem: string): CliError {
  return new CliError(
    "CONFIG_INVALID",
    `${path} ${problem}`,
    "It was left as it is: repair it, or move it aside to start afresh (tokens in it are then forgotten).",
  );
}

/** Reads and parses a JSON file; undefined when it does not exist, a CONFIG_INVALID error when it does not parse. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError("CONFIG", `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidConfigFile(path, "is not valid JSON");
  }
}

/** Writes a file of mode 0600 atomically (a temporary file renamed over it). */
export async function writePrivateFile(path: string, data: string): Promise<void> {
  const temporary = await writeTemporary(path, data);
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError("CONFIG", `cannot write ${path}: ${(error as Error).message}`);
  }
}

/**
 * Creates a file of mode 0600 only if none exists; false when one already does. The content is
 * written to a temporary file and hard-linked into place, so no reader ever sees it half written
 * (an exclusive `wx` open would show an empty file until the write lands).
 */
export async function createPrivateFile(path: string, data: string): Promise<boolean> {
  const temporary = await writeTemporary(path, data);
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // File systems without hard links: an exclusive open is still atomic as to who wins.
    if (code === "EPERM" || code === "ENOTSUP" || code === "ENOSYS") return createExclusive(path, data);
    throw new CliError("CONFIG", `cannot write ${path}: ${(error as Error).message}`);
  } finally {
    await rm(temporary, { force: true });
  }
}

async function createExclusive(path: string, data: string): Promise<boolean> {
  try {
    await writeFile(path, data, { mode: 0o600, flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new CliError("CONFIG", `cannot write ${path}: ${(error as Error).message}`);
  }
}

async function writeTemporary(path: string, data: string): Promise<string> {
  await ensurePrivateDir(dirname(path));
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, data, { mode: 0o600, flag: "wx" });
    // The mode given to writeFile is masked by the umask.
    await chmod(temporary, 0o600);
    return temporary;
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError("CONFIG", `cannot write ${path}: ${(error as Error).message}`);
  }
}
