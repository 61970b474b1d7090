import { type Kysely, type RawBuilder, sql } from "kysely";

// The statements of the manifests backfill (manifest-backfill.ts), each over one slice at most.

/** `manifests` rows one INSERT writes (6 parameters each: far below either engine's limit). */
const MANIFESTS_PER_STATEMENT = 1_000;

/** A revision still without a manifest. */
export interface RevisionRow {
  project_slug: string;
  revision_id: string;
  created_at: number | string;
  row_bytes: number | string;
}

/** One of its files, with its blob's size (NULL without a `blobs` row). */
export interface FileRow extends RevisionRow {
  path: string;
  hash: string;
  size: number | string | null;
  /** 1 when its revision has a row and no manifest yet. */
  open: number | string;
}

/** A manifest to record: a revision's, with what its rows hold. */
export interface Filled {
  projectSlug: string;
  id: string;
  digest: string | null;
  fileCount: number;
  rowBytes: number;
  createdAt: number;
}

/** Up to `limit` revisions without a manifest, in key order. */
export async function openRevisions(db: Kysely<unknown>, limit: number): Promise<RevisionRow[]> {
  const query = sql<RevisionRow>`SELECT project_slug, revision_id, created_at, row_bytes FROM revisions
    WHERE manifest_id IS NULL ORDER BY project_slug, revision_id LIMIT ${limit}`;
  return (await query.execute(db)).rows;
}

/** A file's key, for ranges of `revision_files AS f`. */
export const KEY = sql`(f.project_slug, f.revision_id, f.path)`;

/**
 * `revision_files AS f` where `range` holds, at most `limit` rows in key order. A subquery of its
 * own: joined to `revisions`, PostgreSQL's planner misjudged the share of the rows the key range
 * keeps and sorted every file left at each slice (5.6 s a slice of 1.1M files; 0.4 s so).
 */
function filesIn(range: RawBuilder<unknown>, limit: number, columns: RawBuilder<unknown>) {
  return sql`(SELECT ${columns} FROM revision_files f WHERE ${range}
    ORDER BY f.project_slug, f.revision_id, f.path LIMIT ${limit}) AS f`;
}

/**
 * The next `limit` files after `after`, with their blob's size and their revision's row; `open`
 * 0 for a file of no revision (a failed publish) or of one that has its manifest already.
 */
export async function readFiles(
  db: Kysely<unknown>,
  after: RawBuilder<unknown>,
  limit: number,
): Promise<FileRow[]> {
  const query = sql<FileRow>`SELECT f.project_slug, f.revision_id, f.path, f.hash, b.size, r.created_at,
      r.row_bytes, CASE WHEN r.revision_id IS NOT NULL AND r.manifest_id IS NULL THEN 1 ELSE 0 END AS open
    FROM ${filesIn(after, limit, sql`f.project_slug, f.revision_id, f.path, f.hash`)}
    LEFT JOIN revisions r ON r.project_slug = f.project_slug AND r.revision_id = f.revision_id
    LEFT JOIN blobs b ON b.hash = f.hash
    ORDER BY f.project_slug, f.revision_id, f.path`;
  return (await query.execute(db)).rows;
}

/** Copies the files in `range` (the rows readFiles read) of revisions without a manifest into theirs. */
export async function copyFiles(
  db: Kysely<unknown>,
  range: RawBuilder<unknown>,
  limit: number,
): Promise<void> {
  await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
    SELECT f.project_slug, f.revision_id, f.path, f.hash, f.content_type, f.compressible, 0
    FROM ${filesIn(range, limit, sql`f.*`)}
    JOIN revisions r ON r.project_slug = f.project_slug AND r.revision_id = f.revision_id
    WHERE r.manifest_id IS NULL
    ON CONFLICT (project_slug, manifest_id, path) DO NOTHING`.execute(db);
}

/** Writes the manifests' rows and has each revision name its own. */
export async function recordManifests(db: Kysely<unknown>, filled: Filled[]): Promise<void> {
  for (let start = 0; start < filled.length; start += MANIFESTS_PER_STATEMENT) {
    const slice = filled.slice(start, start + MANIFESTS_PER_STATEMENT);
    const values = slice.map(
      (m) =>
        sql`(${m.projectSlug}, ${m.id}, ${m.digest}, NULL, ${m.fileCount}, ${m.rowBytes}, ${m.createdAt})`,
    );
    await sql`INSERT INTO manifests (project_slug, id, digest, base_id, file_count, row_bytes, created_at)
      VALUES ${sql.join(values)} ON CONFLICT (project_slug, id) DO NOTHING`.execute(db);
    const keys = slice.map((m) => sql`(${m.projectSlug}, ${m.id})`);
    await sql`UPDATE revisions SET manifest_id = revision_id
      WHERE (project_slug, revision_id) IN (VALUES ${sql.join(keys)})`.execute(db);
  }
}
