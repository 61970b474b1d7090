import { type Kysely, type RawBuilder, sql } from "kysely";
import { manifestDigest } from "../../../../core/manifest-digest.js";
import type { ManifestEntry } from "../../../../core/manifest.js";

/*
 * The manifests of the revisions kept when `manifests` was added (sqlite/0003, postgres/0009):
 * each revision's files (`revision_files`) become a full manifest of its own, named by the
 * revision's id (unique in its project). Files of a revision with no `revisions` row (a publish
 * that failed) are left behind with their table.
 *
 * In slices (issue: one INSERT ... SELECT of millions of rows outran the platform's 30 s
 * statement_timeout, POSTGRES_DEFAULTS): the files are read in the order of their key (project,
 * revision, path), at most `sliceRows` a statement, each slice copied by one INSERT over the same
 * key range, and each revision whose files ended within it gets its `manifests` row and its
 * `revisions.manifest_id` in the same slice. A revision larger than a slice takes several.
 *
 * Safe on a crash. On PostgreSQL the Migrator runs every pending migration in one transaction
 * (Kysely's adapter has transactional DDL): a crash undoes 0009 whole and the next start redoes it.
 * On SQLite the Migrator opens none: each slice is a transaction of its own, and the backfill
 * resumes at the first revision whose `manifest_id` is still NULL (slices go in key order, so the
 * ones before it are done), from its first file. Its rows a committed slice copied already are
 * skipped (ON CONFLICT DO NOTHING on the manifest's key), so nothing is lost or doubled.
 *
 * The digest is `manifestDigest` of the revision's entries, as a publish takes it (path, hash and
 * size). revision_files holds no size: the size is the blob's (`blobs.size`), its decoded bytes,
 * which the hash fixes (BLAKE3 over the bytes); it is what a client that reads its files declares.
 * A manifest whose publish declared more bytes than a file has (the upload refuses only fewer)
 * had another digest then; its backfilled one names the true sizes, so a later publish of the same
 * paths and hashes shares it, which is right. A revision naming a hash without a `blobs` row
 * (never expected: the collector keeps what a revision names) gets no digest (NULL, never shared).
 * Memory: a slice's rows, and one revision's entries (the digest sorts them all; at most
 * MAX_ASSETS at its publish).
 */

/** File rows one statement of the backfill reads or copies at most. */
export const BACKFILL_SLICE_ROWS = 50_000;

/** `manifests` rows one INSERT writes (6 parameters each, far from either engine's limit). */
const MANIFESTS_PER_STATEMENT = 1_000;

/** How the backfill runs on an engine. */
export interface BackfillOptions {
  /** Runs one slice's writes: a transaction of its own on SQLite, as they come on PostgreSQL. */
  inSlice(work: (db: Kysely<unknown>) => Promise<void>): Promise<void>;
  /** File rows a slice holds at most (BACKFILL_SLICE_ROWS; smaller in tests). */
  sliceRows?: number;
}

/** A revision still without a manifest. */
interface RevisionRow {
  project_slug: string;
  revision_id: string;
  created_at: number | string;
  row_bytes: number | string;
}

/** One of its files, with its blob's size (NULL without a `blobs` row). */
interface FileRow extends RevisionRow {
  path: string;
  hash: string;
  size: number | string | null;
  open: number | string;
}

/** A manifest to record: a revision's, with what its rows hold. */
interface Filled {
  projectSlug: string;
  id: string;
  digest: string | null;
  fileCount: number;
  rowBytes: number;
  createdAt: number;
}

/** Fills `manifests` and `manifest_files` from `revision_files` for every revision without a manifest. */
export async function fillManifests(db: Kysely<unknown>, options: BackfillOptions): Promise<void> {
  const sliceRows = options.sliceRows ?? BACKFILL_SLICE_ROWS;
  const first = (
    await sql<{ project_slug: string; revision_id: string }>`SELECT project_slug, revision_id
      FROM revisions WHERE manifest_id IS NULL ORDER BY project_slug, revision_id LIMIT 1`.execute(db)
  ).rows[0];
  if (first === undefined) return;
  let after = sql`(f.project_slug, f.revision_id) >= (${first.project_slug}, ${first.revision_id})`;
  let open: { row: FileRow; entries: ManifestEntry[] } | undefined;
  for (;;) {
    const rows = await readFiles(db, after, sliceRows);
    const filled: Filled[] = [];
    for (const row of rows) {
      if (Number(row.open) === 0) continue;
      if (open && (open.row.project_slug !== row.project_slug || open.row.revision_id !== row.revision_id)) {
        filled.push(manifestOf(open.row, open.entries));
        open = undefined;
      }
      open ??= { row, entries: [] };
      open.entries.push({ path: row.path, hash: row.hash, size: row.size === null ? NaN : Number(row.size) });
    }
    const last = rows.at(-1);
    const ended = rows.length < sliceRows;
    if (ended && open) filled.push(manifestOf(open.row, open.entries));
    const range =
      last && sql`${after} AND ${KEY} <= (${last.project_slug}, ${last.revision_id}, ${last.path})`;
    await options.inSlice(async (trx) => {
      if (range) await copyFiles(trx, range, sliceRows);
      await recordManifests(trx, filled);
    });
    if (ended) break;
    after = sql`${KEY} > (${last!.project_slug}, ${last!.revision_id}, ${last!.path})`;
  }
  await fillEmpty(db, options, sliceRows);
}

const KEY = sql`(f.project_slug, f.revision_id, f.path)`;

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
async function readFiles(db: Kysely<unknown>, after: RawBuilder<unknown>, limit: number): Promise<FileRow[]> {
  const query = sql<FileRow>`SELECT f.project_slug, f.revision_id, f.path, f.hash, b.size, r.created_at,
      r.row_bytes, CASE WHEN r.revision_id IS NOT NULL AND r.manifest_id IS NULL THEN 1 ELSE 0 END AS open
    FROM ${filesIn(after, limit, sql`f.project_slug, f.revision_id, f.path, f.hash`)}
    LEFT JOIN revisions r ON r.project_slug = f.project_slug AND r.revision_id = f.revision_id
    LEFT JOIN blobs b ON b.hash = f.hash
    ORDER BY f.project_slug, f.revision_id, f.path`;
  return (await query.execute(db)).rows;
}

/** Copies the files in `range` (the rows readFiles read) of revisions without a manifest into theirs. */
async function copyFiles(db: Kysely<unknown>, range: RawBuilder<unknown>, limit: number): Promise<void> {
  await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
    SELECT f.project_slug, f.revision_id, f.path, f.hash, f.content_type, f.compressible, 0
    FROM ${filesIn(range, limit, sql`f.*`)}
    JOIN revisions r ON r.project_slug = f.project_slug AND r.revision_id = f.revision_id
    WHERE r.manifest_id IS NULL
    ON CONFLICT (project_slug, manifest_id, path) DO NOTHING`.execute(db);
}

/** The manifest of a revision (`row`) with `entries`, of no digest when a size is unknown. */
function manifestOf(row: RevisionRow, entries: ManifestEntry[]): Filled {
  const known = entries.every((entry) => Number.isFinite(entry.size));
  return {
    projectSlug: row.project_slug,
    id: row.revision_id,
    digest: known ? manifestDigest(entries) : null,
    fileCount: entries.length,
    rowBytes: Number(row.row_bytes),
    createdAt: Number(row.created_at),
  };
}

/** Writes the manifests' rows and has each revision name its own. */
async function recordManifests(db: Kysely<unknown>, filled: Filled[]): Promise<void> {
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

/** The revisions without a file: an empty manifest each, a slice of revisions at a time. */
async function fillEmpty(db: Kysely<unknown>, options: BackfillOptions, sliceRows: number): Promise<void> {
  for (;;) {
    const rows = (
      await sql<RevisionRow>`SELECT project_slug, revision_id, created_at, row_bytes FROM revisions
        WHERE manifest_id IS NULL ORDER BY project_slug, revision_id LIMIT ${sliceRows}`.execute(db)
    ).rows;
    if (rows.length === 0) return;
    await options.inSlice((trx) =>
      recordManifests(
        trx,
        rows.map((row) => manifestOf(row, [])),
      ),
    );
  }
}
