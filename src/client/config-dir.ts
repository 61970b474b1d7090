import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.js";

/** The user's config folder: DEPLOY_CONFIG_DIR, else $XDG_CONFIG_HOME/static-deploy, else ~/.config/static-deploy. */
export function configDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.DEPLOY_CONFIG_DIR) return env.DEPLOY_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "static-deploy");
}

/** Creates a folder (and its parents) readable by the user only. */
export async function ensurePrivateDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new CliError("CONFIG", `cannot create the config folder ${path}: ${(error as Error).message}`);
  }
}

/** Reads and parses a JSON file; undefined when it does not exist or is not valid JSON. */
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
    return undefined;
  }
}

/** Writes a file of mode 0600 atomically (a temporary file renamed over it). */
export async function writePrivateFile(path: string, data: string): Promise<void> {
  await ensurePrivateDir(dirname(path));
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, data, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError("CONFIG", `cannot write ${path}: ${(error as Error).message}`);
  }
}
