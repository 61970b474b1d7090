import { randomBytes } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { sha256Hex } from "../../core/ids.js";
import { createPrivateFile, invalidConfigFile, readJsonFile } from "./config-dir.js";
import { CliError } from "../errors.js";

/** The folder's real path, checked to be a folder; a clear error when it is missing. */
export async function resolveSiteDir(cwd: string, dir: string): Promise<string> {
  const wanted = resolve(cwd, dir);
  let real: string;
  try {
    real = await realpath(wanted);
  } catch {
    throw new CliError("NO_FOLDER", `folder not found: ${wanted}`, "Check the path, e.g. `deploy ./dist`.");
  }
  if (!(await stat(real)).isDirectory()) {
    throw new CliError("NOT_A_FOLDER", `not a folder: ${wanted}`, "Give the folder that holds the site.");
  }
  return real;
}

/** projectHash: SHA-256 of the folder's real path. */
export function projectHashOf(realDir: string): string {
  return sha256Hex(realDir);
}

/**
 * anonFingerprint: SHA-256 of a random install id kept in the config folder, made on first use.
 * Runs that start at once must agree on it, or the loser's projects are refused as another
 * install's (403 OWNERSHIP_MISMATCH): the file is created exclusively, and a run that loses reads
 * the winner's id.
 */
export async function anonFingerprint(configDir: string): Promise<string> {
  const path = join(configDir, "install.json");
  const stored = await readInstallId(path);
  if (stored !== undefined) return sha256Hex(stored);
  const installId = randomBytes(32).toString("hex");
  const content = `${JSON.stringify({ installId, createdAt: new Date().toISOString() })}\n`;
  if (await createPrivateFile(path, content)) return sha256Hex(installId);
  const winner = await readInstallId(path);
  if (winner === undefined) throw invalidConfigFile(path, "vanished while it was being created");
  return sha256Hex(winner);
}

async function readInstallId(path: string): Promise<string | undefined> {
  const stored = await readJsonFile(path);
  if (stored === undefined) return undefined;
  const installId = (stored as { installId?: unknown } | null)?.installId;
  if (typeof installId === "string" && /^[0-9a-f]{64}$/.test(installId)) return installId;
  // Replacing it would orphan every project this install made.
  throw invalidConfigFile(path, "holds no valid installId");
}
