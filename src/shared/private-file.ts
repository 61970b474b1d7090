import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Makes sure `file` exists and, if it is new, is readable by its owner only (0600) in a folder
 * created 0700: the databases hold token hashes and the upload-token secret. SQLite gives its
 * `-wal` and `-shm` files the database file's permissions.
 */
export function ensurePrivateFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
}
