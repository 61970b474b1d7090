import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import {
  openPlatformDatabase,
  type PlatformDatabase,
} from "../../src/platform/selfhost/state/sqlite-database.js";
import { testPostgres } from "./postgres.js";

/**
 * For a test file of the platform's tables on PostgreSQL: a function that opens a platform
 * database on a fresh schema, with a temporary folder of its own. What a test opened is closed
 * and removed after it. Call it at the top of the file.
 */
export function postgresPlatformDatabases(prefix: string): () => Promise<PlatformDatabase> {
  const opened: { dir: string; database?: PlatformDatabase }[] = [];
  afterEach(async () => {
    for (const { dir, database } of opened.splice(0)) {
      await database?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return async () => {
    const entry: { dir: string; database?: PlatformDatabase } = {
      dir: mkdtempSync(join(tmpdir(), prefix)),
    };
    opened.push(entry);
    entry.database = await openPlatformDatabase(entry.dir, testPostgres());
    return entry.database;
  };
}
