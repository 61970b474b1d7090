import type { PlatformDatabase } from "../state/platform-db.js";
import { MANIFEST_TABLES } from "../state/platform-tables.js";

/**
 * Counts the writes of the published manifest this process knows of, and which project each
 * touched, so that readers (the edge) can keep what they read in memory until that project's
 * part of it moves.
 */
export interface ManifestGeneration {
  /** Changes on every insert, update or delete of sites, hostnames, revisions or their files. */
  readonly value: number;
  /** The value at the last write of unknown extent (a missed notification): everything moved. */
  readonly everything: number;
  /** The value at the last write known to touch the project, or at `everything` if later. */
  changedAt(projectSlug: string): number;
}

// Projects whose last write is remembered; past this many, one write of unknown extent instead.
const MAX_PROJECTS = 100_000;

class Generation implements ManifestGeneration {
  value = 0;
  everything = 0;
  private readonly projects = new Map<string, number>();

  changedAt(projectSlug: string): number {
    const at = this.projects.get(projectSlug);
    return at === undefined || at < this.everything ? this.everything : at;
  }

  /** A write of the project named, or of unknown extent (undefined). */
  written(projectSlug: string | undefined): void {
    this.value++;
    if (projectSlug === undefined || this.projects.size >= MAX_PROJECTS) {
      this.everything = this.value;
      this.projects.clear();
    }
    if (projectSlug !== undefined) this.projects.set(projectSlug, this.value);
  }
}

const generations = new WeakMap<PlatformDatabase, Generation>();

/**
 * The manifest generation of a database. On SQLite the first call installs temporary triggers
 * that bump it from SQLite itself, with the project of each row written, so no writer can forget
 * to (SiteTables, the garbage collector, plain SQL in tests); a rolled-back write bumps it too,
 * which only costs readers a re-read. On PostgreSQL the writers bump it (`manifestWritten`), and
 * other processes' writes are heard through the database.
 */
export function manifestGeneration(database: PlatformDatabase): ManifestGeneration {
  let generation = generations.get(database);
  if (generation) return generation;
  const counter = new Generation();
  generation = counter;
  generations.set(database, counter);
  database.onManifestChange((projectSlug) => counter.written(projectSlug));
  const db = database.sqlite;
  if (db === undefined) return generation;
  db.function("manifest_written", { deterministic: false, varargs: true }, (...slugs: unknown[]) => {
    // A row without a text slug cannot be told apart: everything is dropped.
    if (slugs.length === 0) counter.written(undefined);
    for (const slug of slugs) counter.written(typeof slug === "string" ? slug : undefined);
    return null;
  });
  const rows = {
    INSERT: "NEW.project_slug",
    UPDATE: "OLD.project_slug, NEW.project_slug",
    DELETE: "OLD.project_slug",
  };
  for (const table of MANIFEST_TABLES) {
    for (const [event, slugs] of Object.entries(rows)) {
      // TEMP triggers live in this connection only and never touch the database file.
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS manifest_${table}_${event.toLowerCase()} AFTER ${event} ON ${table}
         BEGIN SELECT manifest_written(${slugs}); END`,
      );
    }
  }
  return generation;
}

/**
 * Tells this process's readers that the project's manifest (with no project: any) was written,
 * where the engine cannot (PostgreSQL: its triggers run in the server). Call after the write
 * committed; on SQLite the triggers did.
 */
export function manifestWritten(database: PlatformDatabase, projectSlug?: string): void {
  const counter = generations.get(database);
  if (database.sqlite === undefined && counter !== undefined) counter.written(projectSlug);
}
