import { createHash, randomBytes } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { readJsonFile, writePrivateFile } from "./config-dir.js";
import { CliError } from "./errors.js";

/** SHA-256 of a string, as 64 lowercase hex characters. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

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

/** anonFingerprint: SHA-256 of a random install id kept in the config folder (made on first use). */
export async function anonFingerprint(configDir: string): Promise<string> {
  const path = join(configDir, "install.json");
  const stored = (await readJsonFile(path)) as { installId?: unknown } | undefined;
  if (typeof stored?.installId === "string" && /^[0-9a-f]{64}$/.test(stored.installId)) {
    return sha256Hex(stored.installId);
  }
  const installId = randomBytes(32).toString("hex");
  await writePrivateFile(path, `${JSON.stringify({ installId, createdAt: new Date().toISOString() })}\n`);
  return sha256Hex(installId);
}
