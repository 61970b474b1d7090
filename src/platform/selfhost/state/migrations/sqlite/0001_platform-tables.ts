import { type ColumnDefinitionBuilder, type Kysely, sql } from "kysely";

/*
 * The platform's tables on SQLite as the schema ladder of the code before the Migrator left them
 * (its end state), declared once: 0001_platform.ts creates them in a new file and completes them in
 * a file from before. Frozen with that migration: a later change is a migration of its own.
 * Columns are listed in the order the ladder gave them (later ones were appended by ALTER TABLE).
 * Every table is WITHOUT ROWID: rows are stored in their key's order.
 */

type Constraint = "not null" | "not null default 0";
type Column = readonly [name: string, type: "TEXT" | "INTEGER", constraint?: Constraint];

/** A table: its columns, its key, and its indexes (name to columns). */
export interface TableDeclaration {
  columns: readonly Column[];
  primaryKey: readonly string[];
  indexes?: Record<string, readonly string[]>;
}

const NN = "not null";
const ZERO = "not null default 0";

export const TABLES: Record<string, TableDeclaration> = {
  // Content is stored once across projects. Where a blob's bytes are: a byte range of a pack
  // (`pack`, `pack_offset`), or, for content stored before packs, a file of its own (`pack` NULL)
  // that compaction later moves into a pack. `damaged`: its bytes were found short or missing; it
  // is not served and counts as not held, so the next prepare asks for it again.
  blobs: {
    columns: [
      ["hash", "TEXT"],
      ["size", "INTEGER", NN],
      ["created_at", "INTEGER", NN],
      ["pack", "TEXT"],
      ["pack_offset", "INTEGER"],
      ["damaged", "INTEGER", ZERO],
    ],
    primaryKey: ["hash"],
    indexes: { blobs_pack: ["pack", "pack_offset"] },
  },
  // One pack file holds the blobs one upload verified. A pack never changes once durable;
  // live_bytes counts what rows still name, so compaction knows which packs are mostly dead.
  packs: {
    columns: [
      ["id", "TEXT"],
      ["size", "INTEGER", NN],
      ["live_bytes", "INTEGER", NN],
      ["created_at", "INTEGER", NN],
    ],
    primaryKey: ["id"],
  },
  // Who prepared a session, and the bytes it asked for while not deployed (PENDING_QUOTA_BYTES);
  // asset_hashes: how many distinct hashes its manifest names, once written (NULL before).
  upload_sessions: {
    columns: [
      ["id", "TEXT"],
      ["project_slug", "TEXT", NN],
      ["created_at", "INTEGER", NN],
      ["expires_at", "INTEGER", NN],
      ["client_address", "TEXT"],
      ["pending_bytes", "INTEGER", ZERO],
      ["asset_hashes", "INTEGER"],
    ],
    primaryKey: ["id"],
    indexes: { upload_sessions_project: ["project_slug"], upload_sessions_address: ["client_address"] },
  },
  // Keyed by hash before path: a manifest is written in hash order, so its rows land on
  // neighbouring pages of the table as of the index on hash (paths are unique in a manifest
  // already). `compressible`: whether the edge compresses the path's file (its variants count).
  session_assets: {
    columns: [
      ["session_id", "TEXT", NN],
      ["path", "TEXT", NN],
      ["hash", "TEXT", NN],
      ["size", "INTEGER", NN],
      ["content_type", "TEXT", NN],
      ["compressible", "INTEGER", ZERO],
    ],
    primaryKey: ["session_id", "hash", "path"],
    indexes: { session_assets_hash: ["hash"] },
  },
  // The content a session has: verified in one of its uploads, or already its project's when it
  // opened. "Has one of this project's open sessions got this hash?" starts from the hash: through
  // the project's sessions it cost a probe per open session (50-file prepares fell from 448 to 65/s).
  session_blobs: {
    columns: [
      ["session_id", "TEXT", NN],
      ["hash", "TEXT", NN],
    ],
    primaryKey: ["session_id", "hash"],
    indexes: { session_blobs_hash: ["hash"] },
  },
  // production_since: when the production revision last changed (its files' Last-Modified).
  sites: {
    columns: [
      ["project_slug", "TEXT"],
      ["revision_id", "TEXT"],
      ["expires_at", "INTEGER", NN],
      ["production_since", "INTEGER"],
    ],
    primaryKey: ["project_slug"],
  },
  // canonical_url: the URL this host names as canonical (the site's custom domain), or NULL.
  site_hosts: {
    columns: [
      ["hostname", "TEXT"],
      ["project_slug", "TEXT", NN],
      ["canonical_url", "TEXT"],
    ],
    primaryKey: ["hostname"],
    indexes: { site_hosts_project: ["project_slug"] },
  },
  // Stable preview names (deploy --alias): <alias>--<slug>.<SITES_DOMAIN> serves revision_id,
  // which moves to each deploy with that alias; since: when it last moved (its Last-Modified).
  site_aliases: {
    columns: [
      ["project_slug", "TEXT", NN],
      ["alias", "TEXT", NN],
      ["revision_id", "TEXT", NN],
      ["since", "INTEGER", NN],
    ],
    primaryKey: ["project_slug", "alias"],
  },
  // row_bytes: the charge of the revision's rows, counted once at publish.
  revisions: {
    columns: [
      ["project_slug", "TEXT", NN],
      ["revision_id", "TEXT", NN],
      ["created_at", "INTEGER", NN],
      ["row_bytes", "INTEGER", ZERO],
    ],
    primaryKey: ["project_slug", "revision_id"],
  },
  revision_files: {
    columns: [
      ["project_slug", "TEXT", NN],
      ["revision_id", "TEXT", NN],
      ["path", "TEXT", NN],
      ["hash", "TEXT", NN],
      ["content_type", "TEXT", NN],
      ["compressible", "INTEGER", ZERO],
    ],
    primaryKey: ["project_slug", "revision_id", "path"],
    indexes: { revision_files_hash: ["hash"], revision_files_project_hash: ["project_slug", "hash"] },
  },
  settings: {
    columns: [
      ["key", "TEXT"],
      ["value", "TEXT", NN],
    ],
    primaryKey: ["key"],
  },
  // A revision's `_redirects` and `_headers`, parsed once at publish and kept as JSON.
  revision_rules: {
    columns: [
      ["project_slug", "TEXT", NN],
      ["revision_id", "TEXT", NN],
      ["rules", "TEXT", NN],
    ],
    primaryKey: ["project_slug", "revision_id"],
  },
  // Each distinct hash of an upload session once (issue 31), what an uploaded part is looked up by.
  session_hashes: {
    columns: [
      ["session_id", "TEXT", NN],
      ["hash", "TEXT", NN],
      ["path", "TEXT", NN],
      ["size", "INTEGER", NN],
      ["media_type", "TEXT"],
      ["compressible", "INTEGER"],
    ],
    primaryKey: ["session_id", "hash"],
  },
  // Each project's creator and charge (the storage quotas).
  project_charges: {
    columns: [
      ["project_slug", "TEXT"],
      ["client_address", "TEXT"],
      ["created_at", "INTEGER"],
      ["charged_bytes", "INTEGER", ZERO],
    ],
    primaryKey: ["project_slug"],
    indexes: { project_charges_client: ["client_address", "created_at"] },
  },
};

/** Creates `name` as declared, with its indexes. */
export async function createTable(db: Kysely<unknown>, name: string, table: TableDeclaration): Promise<void> {
  let create = db.schema.createTable(name);
  for (const [column, type, constraint] of table.columns) {
    create = create.addColumn(column, sql.raw(type), (c) => constrained(c, constraint));
  }
  await create
    .addPrimaryKeyConstraint(`${name}_pkey`, [...table.primaryKey] as never)
    .modifyEnd(sql`WITHOUT ROWID`)
    .execute();
  await createIndexes(db, name, table);
}

/** Creates the indexes of `name` that it lacks. */
export async function createIndexes(
  db: Kysely<unknown>,
  name: string,
  table: TableDeclaration,
): Promise<void> {
  for (const [index, columns] of Object.entries(table.indexes ?? {})) {
    await db.schema
      .createIndex(index)
      .ifNotExists()
      .on(name)
      .columns([...columns])
      .execute();
  }
}

/** Adds the declared column to an existing table (ALTER TABLE: appended, rows get its default). */
export async function addColumn(db: Kysely<unknown>, table: string, column: Column): Promise<void> {
  const [name, type, constraint] = column;
  await db.schema
    .alterTable(table)
    .addColumn(name, sql.raw(type), (c) => constrained(c, constraint))
    .execute();
}

function constrained(column: ColumnDefinitionBuilder, constraint: Constraint | undefined) {
  if (constraint === undefined) return column;
  return constraint === NN ? column.notNull() : column.notNull().defaultTo(0);
}
