import { sql } from "kysely";
import { generateOpaqueId } from "../../../core/ids.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { type Executor, firstOf, type PlatformDatabase } from "../state/platform-db.js";
import { writeDelta, writeWhole } from "./manifest-rows.js";
import { copyDeltaSession } from "./delta-rows.js";
import { InvalidCompletionError } from "../../../core/errors.js";

/*
 * Manifests stored once (issue 32). A revision names a manifest of its project; a publish whose
 * manifest digest the project has already (a preview or redeploy of unchanged files) names that
 * one and writes no file row. Otherwise the new manifest is written as a delta of the project's
 * full manifest (its production revision's, else its latest) when the delta (paths added or
 * changed, and a tombstone per path removed) is at most MAX_DELTA (manifest-rows.ts) of the base's
 * files, else whole. A delta's base is always a full manifest, so a lookup reads at most two rows.
 * Why base and delta rather than a tree of per-folder manifests: ARCHITECTURE.md ("Manifests
 * stored once"). The digest names path, hash and size: a manifest shared keeps the media types of
 * its first publish (as an unchanged redeploy by digest keeps production's).
 *
 * A manifest's rows are written before the revision that names it (in slices on SQLite), its
 * `file_count` NULL until the publish's transaction completes it: an incomplete one is never shared
 * nor a base, and goes with the next cleanup (manifest-cleanup.ts). Publishes of a project take
 * turns (the API's project lock), so no other writes or deletes the project's manifests meanwhile.
 * A delta session (sessions/delta-open.ts) was compared with its base when it opened: its rows are
 * written as the delta of that base as they are.
 */

/** The manifest a publish names: one the project had, or one written now (to complete at publish). */
export interface StagedManifest {
  id: string;
  /**
   * The charge of its rows (`revisions.row_bytes`, quota-charges.ts): as if each revision owned a
   * row per path, shared or a delta (an upper bound of what it stores, contract §1).
   */
  rowBytes: number;
  /**
   * Written now: what the publish's transaction records (`completeManifest`), and how many rows it
   * wrote (what the project's charge adds is found through them, quotas/added-charge.ts).
   */
  fresh?: { digest: string | null; baseId: string | null; fileCount: number; rows: number };
}

/** Finds the session's manifest among the project's, or writes it (a delta of a full one when small). */
export async function stageManifest(
  database: PlatformDatabase,
  target: { projectSlug: string; sessionId: string; now: number },
  pacer: Pacer,
): Promise<StagedManifest> {
  const { projectSlug, sessionId } = target;
  const db = database.db;
  // One read: the session's digest, the project's complete manifest of that digest if any, else
  // the session's count of files (what a manifest written now records; a delta session's, its own).
  const found = await firstOf(
    db,
    sql<{
      digest: string | null;
      known_id: string | null;
      known_row_bytes: number | string | null;
      n: number | string | null;
      base_id: string | null;
      base_whole: string | null;
      row_bytes: number | string | null;
    }>`SELECT s.manifest_digest AS digest, k.id AS known_id, k.row_bytes AS known_row_bytes,
        s.base_manifest_id AS base_id, b.id AS base_whole, s.row_bytes,
        CASE WHEN k.id IS NOT NULL THEN NULL WHEN s.base_manifest_id IS NOT NULL THEN s.file_count
          ELSE (SELECT COUNT(*) FROM session_assets WHERE session_id = ${sessionId}) END AS n
      FROM upload_sessions s
      LEFT JOIN manifests k ON k.project_slug = ${projectSlug} AND k.digest = s.manifest_digest
        AND k.file_count IS NOT NULL
      LEFT JOIN manifests b ON b.project_slug = ${projectSlug} AND b.id = s.base_manifest_id
        AND b.base_id IS NULL AND b.file_count IS NOT NULL
      WHERE s.id = ${sessionId} LIMIT 1`,
  );
  if (found?.known_id) return { id: found.known_id, rowBytes: Number(found.known_row_bytes) };
  const digest = found?.digest ?? null;
  if (found?.base_id) {
    // Never gone while the session lives; a project removed meanwhile took its sessions too.
    if (found.base_whole === null) {
      throw new InvalidCompletionError("upload session's base is gone; prepare the deploy again");
    }
    const session = {
      digest,
      baseId: found.base_id,
      fileCount: Number(found.n),
      rowBytes: Number(found.row_bytes),
    };
    return stageDelta(database, target, session, pacer);
  }
  const fileCount = Number(found?.n ?? 0);
  const id = generateOpaqueId();
  const base = await fullBaseOf(db, projectSlug);
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
    return { id, rowBytes: manifest.rowBytes, fresh: { digest, baseId: base.id, fileCount, rows: delta } };
  }
  manifest.rowBytes = 0;
  await writeWhole(database, manifest, pacer);
  return { id, rowBytes: manifest.rowBytes, fresh: { digest, baseId: null, fileCount, rows: fileCount } };
}

/**
 * Writes a delta session's rows (sessions/delta-open.ts) as a delta of its base, which its session
 * kept (manifest-cleanup.ts); none: the base itself (the session changed nothing).
 */
async function stageDelta(
  database: PlatformDatabase,
  target: { projectSlug: string; sessionId: string; now: number },
  session: { digest: string | null; baseId: string; fileCount: number; rowBytes: number },
  pacer: Pacer,
): Promise<StagedManifest> {
  const { projectSlug, sessionId } = target;
  const { baseId, rowBytes } = session;
  const id = generateOpaqueId();
  await sql`INSERT INTO manifests (project_slug, id, digest, base_id, file_count, created_at)
    VALUES (${projectSlug}, ${id}, NULL, ${baseId}, NULL, ${target.now})`.execute(database.db);
  const rows = await copyDeltaSession(database, { projectSlug, sessionId, id, rowBytes }, pacer);
  if (rows === 0) {
    await sql`DELETE FROM manifests WHERE project_slug = ${projectSlug} AND id = ${id}`.execute(database.db);
    return { id: baseId, rowBytes };
  }
  return { id, rowBytes, fresh: { digest: session.digest, baseId, fileCount: session.fileCount, rows } };
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
export async function fullBaseOf(
  db: Executor,
  projectSlug: string,
  withDamaged = false,
): Promise<{ id: string; fileCount: number; damaged: number } | undefined> {
  // With it, how many blobs are damaged (a partial index's count: they are few), in the same read.
  const damaged = withDamaged ? sql`(SELECT COUNT(*) FROM blobs WHERE damaged <> 0)` : sql`0`;
  type Row = { id: string; file_count: number | string; damaged: number | string };
  const production = await firstOf(
    db,
    sql<Row>`SELECT b.id, b.file_count, ${damaged} AS damaged FROM sites s
      JOIN revisions r ON r.project_slug = s.project_slug AND r.revision_id = s.revision_id
      JOIN manifests m ON m.project_slug = r.project_slug AND m.id = r.manifest_id
      JOIN manifests b ON b.project_slug = m.project_slug AND b.id = COALESCE(m.base_id, m.id)
      WHERE s.project_slug = ${projectSlug} AND b.file_count IS NOT NULL`,
  );
  const row =
    production ??
    (await firstOf(
      db,
      sql<Row>`SELECT id, file_count, ${damaged} AS damaged FROM manifests
        WHERE project_slug = ${projectSlug} AND base_id IS NULL AND file_count IS NOT NULL
        ORDER BY created_at DESC, id DESC LIMIT 1`,
    ));
  return row && { id: row.id, fileCount: Number(row.file_count), damaged: Number(row.damaged) };
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
