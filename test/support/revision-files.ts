import { type Kysely, sql } from "kysely";
import { fillManifestHashes } from "../../src/platform/selfhost/state/migrations/manifest-hashes-backfill.js";
import type { Executor, SqlDialect } from "../../src/platform/selfhost/state/platform-db.js";
import type { PlatformTables } from "../../src/platform/selfhost/state/platform-tables.js";

/** A revision's file as its manifest gives it (the rows `revision_files` held before manifests). */
export interface RevisionFileRow {
  project_slug: string;
  revision_id: string;
  path: string;
  hash: string;
  content_type: string;
  compressible: number;
}

/**
 * Every revision's files through its manifest: a delta's rows, then its base's paths the delta
 * neither changes nor removes (sites/manifest-staging.ts), as a subquery.
 */
export const REVISION_FILES = `(SELECT r.project_slug, r.revision_id, f.path, f.hash, f.content_type, f.compressible
  FROM revisions r JOIN manifests m ON m.project_slug = r.project_slug AND m.id = r.manifest_id
  JOIN manifest_files f ON f.project_slug = r.project_slug AND (f.manifest_id = m.id
    OR (f.manifest_id = m.base_id AND NOT EXISTS (SELECT 1 FROM manifest_files d
      WHERE d.project_slug = f.project_slug AND d.manifest_id = m.id AND d.path = f.path)))
  WHERE f.removed = 0)`;

/** Every revision's files, in order of project, revision and path. */
export async function revisionFiles(db: Kysely<PlatformTables>): Promise<RevisionFileRow[]> {
  const query = sql<RevisionFileRow>`SELECT * FROM ${sql.raw(REVISION_FILES)} AS files
    ORDER BY project_slug, revision_id, path`;
  return (await query.execute(db)).rows.map((row) => ({ ...row, compressible: Number(row.compressible) }));
}

/**
 * Gives a revision a file, as a fixture: in the full manifest named by the revision's id (made
 * if missing), which the revision's row names (now if it has one; `nameManifest` later).
 */
export async function addRevisionFile(
  db: Kysely<PlatformTables>,
  file: {
    project: string;
    revision: string;
    path: string;
    hash: string;
    contentType?: string;
    compressible?: number;
  },
): Promise<void> {
  const { project, revision } = file;
  await sql`INSERT INTO manifests (project_slug, id, digest, base_id, file_count, created_at)
    VALUES (${project}, ${revision}, NULL, NULL, 0, 0) ON CONFLICT DO NOTHING`.execute(db);
  await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
    VALUES (${project}, ${revision}, ${file.path}, ${file.hash}, ${file.contentType ?? "text/plain"},
      ${file.compressible ?? 0})`.execute(db);
  // Its hash as the manifest's (sites/manifest-hashes.ts), compressible if one of its paths is.
  await sql`INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
    VALUES (${project}, ${revision}, ${file.hash}, ${file.compressible ?? 0})
    ON CONFLICT (project_slug, manifest_id, hash) DO UPDATE
      SET compressible = CASE WHEN excluded.compressible = 1 THEN 1 ELSE manifest_hashes.compressible END`.execute(
    db,
  );
  await sql`UPDATE manifests SET file_count = file_count + 1 WHERE project_slug = ${project} AND id = ${revision}`.execute(
    db,
  );
  await nameManifest(db, project, revision);
}

/** Points a fixture revision's row at the manifest named by its id. */
export async function nameManifest(
  db: Kysely<PlatformTables>,
  project: string,
  revision: string,
): Promise<void> {
  await sql`UPDATE revisions SET manifest_id = revision_id
    WHERE project_slug = ${project} AND revision_id = ${revision}`.execute(db);
}

/** Gives every manifest the hashes of its rows a test wrote straight into manifest_files. */
export async function fillHashes(db: Executor, dialect: SqlDialect): Promise<void> {
  await fillManifestHashes(db as unknown as Kysely<unknown>, dialect, {
    inSlice: (work) => work(db as never),
  });
}
