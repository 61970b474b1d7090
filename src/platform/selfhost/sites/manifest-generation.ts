import type { PlatformDatabase } from "../state/platform-db.js";
import { MANIFEST_TABLES } from "../state/platform-tables.js";

/**
 * Counts the writes of the published manifest by this process, so that readers (the edge) can
 * keep what they read in memory until it moves.
 */
export interface ManifestGeneration {
  /** Changes on every insert, update or delete of sites, hostnames, revisions or their files. */
  readonly value: number;
}

const generations = new WeakMap<PlatformDatabase, { value: number }>();

/**
 * The manifest generation of a database. On SQLite the first call installs temporary triggers
 * that bump it from SQLite itself, so no writer can forget to (SiteTables, the garbage collector,
 * plain SQL in tests); a rolled-back write bumps it too, which only costs readers a re-read. On
 * PostgreSQL the writers bump it (`manifestWritten`).
 */
export function manifestGeneration(database: PlatformDatabase): ManifestGeneration {
  let generation = generations.get(database);
  if (generation) return generation;
  const counter = { value: 0 };
  generation = counter;
  generations.set(database, counter);
  // Writes by other processes (PostgreSQL): heard through the database.
  database.onManifestChange(() => counter.value++);
  const db = database.sqlite;
  if (db === undefined) return generation;
  db.function("manifest_written", { deterministic: false }, () => {
    counter.value++;
    return null;
  });
  for (const table of MANIFEST_TABLES) {
    for (const event of ["INSERT", "UPDATE", "DELETE"]) {
      // TEMP triggers live in this connection only and never touch the database file.
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS manifest_${table}_${event.toLowerCase()} AFTER ${event} ON ${table}
         BEGIN SELECT manifest_written(); END`,
      );
    }
  }
  return generation;
}

/**
 * Tells this process's readers that the manifest was written, where the engine cannot (PostgreSQL:
 * its triggers run in the server). Call after the write committed; on SQLite the triggers did.
 */
export function manifestWritten(database: PlatformDatabase): void {
  const counter = generations.get(database);
  if (database.sqlite === undefined && counter !== undefined) counter.value++;
}
