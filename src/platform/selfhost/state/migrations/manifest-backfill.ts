import { type Kysely, sql } from "kysely";
import { manifestDigest } from "../../../../core/manifest-digest.js";
import type { ManifestEntry } from "../../../../core/manifest.js";
import {
  copyFiles,
  type FileRow,
  type Filled,
  KEY,
  openRevisions,
  readFiles,
  recordManifests,
  type RevisionRow,
} from "./manifest-backfill-rows.js";

/*
 * The manifests of the revisions kept when `manifests` was added (sqlite/0003, postgres/0009):
 * each revision's files (`revision_files`) become a full manifest of its own, named by the
 * revision's id (unique in its project). Files of a revision with no `revisions` row (a publish
 * that failed) are left behind with their table.
 *
 * In slices: the one INSERT ... SELECT of every file it replaces took 18.9 s of the platform's 30 s
 * statement_timeout (POSTGRES_DEFAULTS) for 1.1M files on this project's machine, so a few million
 * outran it. The files are read in the order of their key (project, revision, path), at most
 * `sliceRows` a statement, each slice copied by one INSERT over the same key range, and each
 * revision whose files ended within it gets its `manifests` row and its `revisions.manifest_id` in
 * the same slice; a revision larger than a slice takes several. 1.1M files: 0.93 s the slowest
 * statement, 29 s in all (PostgreSQL); 13 s in all on SQLite (4.5 s in one go before).
 *
 * Safe on a crash. On PostgreSQL the Migrator runs every pending migration in one transaction
 * (Kysely's adapter has transactional DDL): a crash undoes 0009 whole and the next start redoes
 * it. That transaction stays as long as the whole move (each statement is bounded, not it; the
 * time between two, a slice's digests, is far below idle_in_transaction_session_timeout). On
 * SQLite the Migrator opens none: each slice is a transaction of its own, and the backfill
 * resumes at the first revision whose `manifest_id` is still NULL (slices go in key order, so the
 * ones before it are done), from its first file. Its rows a committed slice copied already are
 * skipped (ON CONFLICT DO NOTHING on the manifest's key), so nothing is lost or doubled.
 *
 * The digest is `manifestDigest` of the revision's entries, as a publish takes it (path, hash and
 * size). revision_files holds no size: the size is the blob's (`blobs.size`, its decoded bytes),
 * which the hash fixes (BLAKE3 over the bytes), and what this project's client declares (the
 * file's length, deploy-folder.ts). A manifest whose publish declared more bytes than a file has
 * (the upload refuses a part longer than declared, not a shorter one) had another digest then;
 * its backfilled one names the true sizes, so a later publish of the same paths and hashes shares
 * it, which is right. A revision naming a hash without a `blobs` row (never expected: the
 * collector keeps what a revision names) gets no digest (NULL, never shared).
 * Memory: a slice's rows, and one revision's entries (the digest sorts them all; at most
 * MAX_ASSETS at its publish).
 */

/** File rows one statement of the backfill reads or copies at most. */
export const BACKFILL_SLICE_ROWS = 50_000;

/** How the backfill runs on an engine. */
export interface BackfillOptions {
  /** Runs one slice's writes: a transaction of its own on SQLite, as they come on PostgreSQL. */
  inSlice(work: (db: Kysely<unknown>) => Promise<void>): Promise<void>;
  /** File rows a slice holds at most (BACKFILL_SLICE_ROWS; smaller in tests). */
  sliceRows?: number;
}

/** Fills `manifests` and `manifest_files` from `revision_files` for every revision without a manifest. */
export async function fillManifests(db: Kysely<unknown>, options: BackfillOptions): Promise<void> {
  const sliceRows = options.sliceRows ?? BACKFILL_SLICE_ROWS;
  const [first] = await openRevisions(db, 1);
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

/** The revisions without a file: an empty manifest each, a slice of revisions at a time. */
async function fillEmpty(db: Kysely<unknown>, options: BackfillOptions, sliceRows: number): Promise<void> {
  for (;;) {
    const rows = await openRevisions(db, sliceRows);
    if (rows.length === 0) return;
    await options.inSlice((trx) =>
      recordManifests(
        trx,
        rows.map((row) => manifestOf(row, [])),
      ),
    );
  }
}
