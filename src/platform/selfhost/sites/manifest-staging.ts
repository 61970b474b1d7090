import { type RawBuilder, sql } from "kysely";
import { generateOpaqueId } from "../../../core/ids.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { rowBytesSum } from "../quotas/quota-charges.js";
import {
  changesOf,
  type Executor,
  firstOf,
  type PlatformDatabase,
  type SqlDialect,
} from "../state/platform-db.js";
import { deleteInSlices } from "../state/sliced-delete.js";
import { ROWS_PER_SLICE } from "../sessions/session-rows.js";
import { inOrderedSlices } from "./row-slices.js";

/*
 * Manifests stored once (issue 32). A revision names a manifest of its project; a publish whose
 * manifest digest the project has already (a preview or redeploy of unchanged files) names that
 * one and writes no file row. Otherwise the new manifest is written as a delta of the project's
 * full manifest (its production revision's, else its latest) when the delta (paths added or
 * changed, and a tombstone per path removed) is at most MAX_DELTA of the base's files, else whole.
 * A delta's base is always a full manifest, so a lookup reads at most two rows. Why base and delta
 * rather than a tree of per-folder manifests: ARCHITECTURE.md ("Manifests stored once").
 *
 * A manifest's rows are written before the revision that names it (in slices on SQLite), its
 * `file_count` NULL until the publish's transaction completes it: an incomplete one is never shared
 * nor a base, and goes with the next cleanup (manifest-cleanup.ts). Publishes of a project take
 * turns (the API's project lock), so no other writes or deletes the project's manifests meanwhile.
 */

/** A delta is kept when it holds at most this share of its base's files. */
export const MAX_DELTA = 0.25;

/** The manifest a publish names: one the project had, or one written now (to complete at publish). */
export interface StagedManifest {
  id: string;
  /**
   * The charge of its rows (`revisions.row_bytes`, quota-charges.ts): as if each revision owned a
   * row per path, shared or a delta (an upper bound of what it stores, contract §1).
   */
  rowBytes: number;
  /** Written now: what the publish's transaction records (`completeManifest`). */
  fresh?: { digest: string | null; baseId: string | null; fileCount: number };
}

/** Finds the session's manifest among the project's, or writes it (a delta of a full one when small). */
export async function stageManifest(
  database: PlatformDatabase,
  target: { projectSlug: string; sessionId: string; now: number },
  pacer: Pacer,
): Promise<StagedManifest> {
  const { projectSlug, sessionId } = target;
  const db = database.db;
  const session = await firstOf(
    db,
    sql<{
      manifest_digest: string | null;
    }>`SELECT manifest_digest FROM upload_sessions WHERE id = ${sessionId}`,
  );
  const digest = session?.manifest_digest ?? null;
  if (digest !== null) {
    const known = await firstOf(
      db,
      sql<{ id: string; row_bytes: number | string }>`SELECT id, row_bytes FROM manifests
        WHERE project_slug = ${projectSlug} AND digest = ${digest} AND file_count IS NOT NULL`,
    );
    if (known) return { id: known.id, rowBytes: Number(known.row_bytes) };
  }
  const counted = await firstOf(
    db,
    sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM session_assets WHERE session_id = ${sessionId}`,
  );
  const fileCount = Number(counted!.n);
  const id = generateOpaqueId();
  const base = await baseOf(db, projectSlug);
  await sql`INSERT INTO manifests (project_slug, id, digest, base_id, file_count, created_at)
    VALUES (${projectSlug}, ${id}, NULL, ${base?.id ?? null}, NULL, ${target.now})`.execute(db);
  const manifest = { projectSlug, sessionId, id, rowBytes: 0 };
  const delta = base && (await writeDelta(database, manifest, base, pacer));
  if (base !== undefined && delta === 0) {
    // The base itself (a session listed in another order, or prepared without a digest).
    await sql`DELETE FROM manifests WHERE project_slug = ${projectSlug} AND id = ${id}`.execute(db);
    return { id: base.id, rowBytes: manifest.rowBytes };
  }
  if (base !== undefined && delta !== undefined) {
    return { id, rowBytes: manifest.rowBytes, fresh: { digest, baseId: base.id, fileCount } };
  }
  manifest.rowBytes = 0;
  await writeWhole(database, manifest, pacer);
  return { id, rowBytes: manifest.rowBytes, fresh: { digest, baseId: null, fileCount } };
}

/** Records a manifest written for the publish as complete (in the publish's transaction). */
export async function completeManifest(
  trx: Executor,
  projectSlug: string,
  staged: StagedManifest,
): Promise<void> {
  if (staged.fresh === undefined) return;
  const { digest, baseId, fileCount } = staged.fresh;
  await sql`UPDATE manifests SET digest = ${digest}, base_id = ${baseId}, file_count = ${fileCount},
      row_bytes = ${staged.rowBytes} WHERE project_slug = ${projectSlug} AND id = ${staged.id}`.execute(trx);
}

/** The full manifest a new one is a delta of: production's (or its base), else the latest full one. */
async function baseOf(
  db: Executor,
  projectSlug: string,
): Promise<{ id: string; fileCount: number } | undefined> {
  const production = await firstOf(
    db,
    sql<{ id: string; file_count: number | string }>`SELECT b.id, b.file_count FROM sites s
      JOIN revisions r ON r.project_slug = s.project_slug AND r.revision_id = s.revision_id
      JOIN manifests m ON m.project_slug = r.project_slug AND m.id = r.manifest_id
      JOIN manifests b ON b.project_slug = m.project_slug AND b.id = COALESCE(m.base_id, m.id)
      WHERE s.project_slug = ${projectSlug} AND b.file_count IS NOT NULL`,
  );
  const row =
    production ??
    (await firstOf(
      db,
      sql<{ id: string; file_count: number | string }>`SELECT id, file_count FROM manifests
        WHERE project_slug = ${projectSlug} AND base_id IS NULL AND file_count IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT 1`,
    ));
  return row && { id: row.id, fileCount: Number(row.file_count) };
}

interface Target {
  projectSlug: string;
  sessionId: string;
  id: string;
  /** The charge of the session's rows, summed range by range as they are read. */
  rowBytes: number;
}

/** Adds the charge of the session's rows in `range` to the target's. */
async function charge(trx: Executor, dialect: SqlDialect, target: Target, range: RawBuilder<unknown>) {
  const row = await firstOf(
    trx,
    sql<{ n: number | string }>`SELECT ${rowBytesSum(dialect)} AS n FROM session_assets a WHERE ${range}`,
  );
  target.rowBytes += Number(row!.n);
}

// A session row's file as the revision serves it: a type an upload declared for the hash wins
// over its path's (session-hashes.ts).
const SESSION_FILES = sql`FROM session_assets a
  LEFT JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash`;
const TYPE = sql`COALESCE(h.media_type, a.content_type)`;
const COMPRESSIBLE = sql`COALESCE(h.compressible, a.compressible)`;

/** Copies every file of the session into the manifest. */
async function writeWhole(database: PlatformDatabase, target: Target, pacer: Pacer): Promise<void> {
  const { projectSlug, sessionId, id } = target;
  const rows = {
    table: "session_assets",
    alias: "a",
    scope: sql`a.session_id = ${sessionId}`,
    key: ["hash", "path"],
  };
  await inOrderedSlices(database, rows, pacer, async (trx, range) => {
    await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
      SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), a.path, a.hash, ${TYPE}, ${COMPRESSIBLE}
      ${SESSION_FILES} WHERE ${range}`.execute(trx);
    await charge(trx, database.dialect, target, range);
    return true;
  });
}

/**
 * Writes the session's files that differ from the base's (added or changed) and a tombstone for
 * each path of the base the session lacks, and returns how many; gives up (its rows deleted,
 * undefined) once they are more than MAX_DELTA of the base's files. On SQLite, range by range,
 * every probe a seek (the base's row by its path, the session's by (hash, path), the delta's by
 * its path); on PostgreSQL, one EXCEPT each (hashed or sorted whatever the planner thinks of a
 * fresh table: the probes as NOT EXISTS outran the statement timeout for 20,000 rows).
 */
async function writeDelta(
  database: PlatformDatabase,
  target: Target,
  base: { id: string; fileCount: number },
  pacer: Pacer,
): Promise<number | undefined> {
  const { projectSlug, sessionId, id } = target;
  const most = Math.floor(base.fileCount * MAX_DELTA);
  let written = 0;
  const session = {
    table: "session_assets",
    alias: "a",
    scope: sql`a.session_id = ${sessionId}`,
    key: ["hash", "path"],
  };
  const postgres = database.dialect === "postgres";
  let small = await inOrderedSlices(database, session, pacer, async (trx, range) => {
    written += await changesOf(
      trx,
      postgres
        ? sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
          SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), c.path, c.hash, c.content_type, c.compressible
          FROM (SELECT a.path, a.hash, ${TYPE} AS content_type, ${COMPRESSIBLE} AS compressible
              ${SESSION_FILES} WHERE ${range}
            EXCEPT SELECT path, hash, content_type, compressible FROM manifest_files
              WHERE project_slug = ${projectSlug} AND manifest_id = ${base.id}) AS c`
        : sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
          SELECT ${projectSlug}, ${id}, a.path, a.hash, ${TYPE}, ${COMPRESSIBLE}
          ${SESSION_FILES} WHERE ${range} AND NOT EXISTS (SELECT 1 FROM manifest_files b
            WHERE b.project_slug = ${projectSlug} AND b.manifest_id = ${base.id} AND b.path = a.path
              AND b.hash = a.hash AND b.content_type = ${TYPE} AND b.compressible = ${COMPRESSIBLE})`,
    );
    await charge(trx, database.dialect, target, range);
    return written <= most;
  });
  const baseRows = {
    table: "manifest_files",
    alias: "b",
    scope: sql`b.project_slug = ${projectSlug} AND b.manifest_id = ${base.id}`,
    key: ["path"],
  };
  small &&= await inOrderedSlices(database, baseRows, pacer, async (trx, range) => {
    written += await changesOf(
      trx,
      postgres
        ? sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
          SELECT CAST(${projectSlug} AS TEXT), CAST(${id} AS TEXT), g.path, '', '', 0, 1
          FROM (SELECT b.path FROM manifest_files b WHERE ${range}
            EXCEPT SELECT path FROM session_assets WHERE session_id = ${sessionId}) AS g`
        : sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
        SELECT b.project_slug, ${id}, b.path, '', '', 0, 1 FROM manifest_files b
        WHERE ${range} AND NOT EXISTS (SELECT 1 FROM session_assets a
            WHERE a.session_id = ${sessionId} AND a.hash = b.hash AND a.path = b.path)
          AND NOT EXISTS (SELECT 1 FROM manifest_files d
            WHERE d.project_slug = b.project_slug AND d.manifest_id = ${id} AND d.path = b.path)`,
    );
    return written <= most;
  });
  if (small) return written;
  const rows = {
    table: "manifest_files",
    scope: [
      ["project_slug", projectSlug],
      ["manifest_id", id],
    ] as [string, string][],
    key: ["path"],
  };
  await deleteInSlices(database, rows, ROWS_PER_SLICE, pacer);
  return undefined;
}

/** Whether the project has the revision published (its `revisions` row). */
export async function isPublished(
  database: PlatformDatabase,
  projectSlug: string,
  revisionId: string,
): Promise<boolean> {
  const row = await firstOf(
    database.db,
    sql`SELECT 1 AS published FROM revisions WHERE project_slug = ${projectSlug} AND revision_id = ${revisionId}`,
  );
  return row !== undefined;
}
