// Test helper: the self-hosted platform whole on a real SQLite file in a temporary folder, for the
// unit tests beside src/platform/selfhost.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import type { ManifestEntry } from "../../src/core/manifest.js";
import { BlobReader } from "../../src/platform/selfhost/content/blob-reader.js";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import type { ContentFiles } from "../../src/platform/selfhost/maintenance/garbage-collector.js";
import { DiskPackStorage } from "../../src/platform/selfhost/content/disk/disk-pack-storage.js";
import { SelfHostedPlatform } from "../../src/platform/selfhost/selfhost-platform.js";
import { ContentDirectory } from "../../src/platform/selfhost/content/content-directory.js";
import { type PlatformDatabase, rowsOf } from "../../src/platform/selfhost/state/platform-db.js";
import type { StorageLimits } from "../../src/platform/selfhost/quotas/storage-limits.js";
import { UploadTokens } from "../../src/platform/selfhost/sessions/upload-tokens.js";
import { UploadSessions } from "../../src/platform/selfhost/sessions/upload-sessions.js";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";

export interface TestPlatform {
  dir: string;
  database: PlatformDatabase;
  files: ContentFiles;
  reader: BlobReader;
  sessions: UploadSessions;
  tokens: UploadTokens;
  platform: SelfHostedPlatform;
  /** The platform's clock, in milliseconds: tests set it. */
  clock: { ms: number };
  /** Closes the platform (unless the test did) and removes its folder. */
  remove(): Promise<void>;
}

export const ACCOUNT = "acc0123";
export const UPLOAD_URL = "http://127.0.0.1:1/upload";

/** A 32-hex-digit content hash of `text` (the manifest's form). */
export const hashOf = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 32);

/**
 * A platform on a new temporary folder (or `dir`, removed with it), with `storage` limits when
 * given, its clock at `ms`; its database on SQLite in the folder, or on PostgreSQL when `postgres`
 * is given.
 */
export async function testPlatform(
  storage?: StorageLimits,
  ms = 1_000_000,
  postgres?: PostgresOptions,
  dir = mkdtempSync(join(tmpdir(), "selfhost-platform-")),
): Promise<TestPlatform> {
  const database = await openPlatformDatabase(dir, postgres);
  const files: ContentFiles = { packs: new ContentDirectory(dir), storage: new DiskPackStorage(dir) };
  const reader = new BlobReader(database, files.packs, files.storage);
  const sessions = new UploadSessions(database);
  const clock = { ms };
  const now = () => clock.ms;
  const tokens = new UploadTokens("a secret of the test platform, long enough", now);
  const bucketLimits = { maxBytes: 1024 * 1024, maxFiles: 2 };
  const options = {
    db: database,
    files,
    reader,
    sessions,
    tokens,
    accountId: ACCOUNT,
    uploadUrl: UPLOAD_URL,
  };
  const platform = new SelfHostedPlatform({ ...options, bucketLimits, storage, now });
  const remove = async () => {
    if (database.open) await platform.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, database, files, reader, sessions, tokens, platform, clock, remove };
}

/** Entries of files with these contents, at paths `/<name>`. */
export function manifestOf(files: Record<string, string>): ManifestEntry[] {
  return Object.entries(files).map(([name, text]) => ({
    path: `/${name}`,
    hash: hashOf(text),
    size: Buffer.byteLength(text),
  }));
}

/** Uploads these contents into session `sessionId` as one pack, as the upload service does. */
export async function uploadInto(t: TestPlatform, sessionId: string, contents: string[]): Promise<string> {
  const writer = t.files.packs.newWriter();
  const blobs = [];
  for (const text of new Set(contents)) {
    blobs.push({ hash: hashOf(text), size: Buffer.byteLength(text), offset: writer.length });
    await writer.append(Buffer.from(text));
  }
  const pack = await t.files.storage.commit(writer);
  await t.sessions.record(sessionId, { pack: { ...pack, blobs }, mediaTypes: [] }, t.clock.ms);
  return pack.id;
}

/** Every row of a table of the platform database, in its key's order. */
export function rowsOfTable(t: TestPlatform, table: string): Promise<Record<string, unknown>[]> {
  return rowsOf(t.database.db, sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`);
}

/** Opens a session of `project` for these files, uploads what it asks for, and publishes it. */
export async function deployed(
  t: TestPlatform,
  project: string,
  revisionId: string,
  files: Record<string, string>,
): Promise<string> {
  const expiresAt = new Date(t.clock.ms + 60_000);
  const entries = manifestOf(files);
  const session = await t.platform.openUploadSession({ projectSlug: project, entries, expiresAt });
  if (session.buckets.length > 0) await uploadInto(t, session.sessionId, Object.values(files));
  await publishSession(t, project, revisionId, session.sessionId, expiresAt);
  return session.sessionId;
}

/** Publishes an open session of `project` as `revisionId` at `<project>.test`, with its completion token. */
export async function publishSession(
  t: TestPlatform,
  project: string,
  revisionId: string,
  sessionId: string,
  expiresAt: Date,
): Promise<void> {
  const completionJwt = await t.tokens.sign(["completion"], sessionId, ACCOUNT, expiresAt);
  const input = { projectSlug: project, revisionId, sessionId, completionJwt };
  await t.platform.publishRevision({ ...input, hostnames: [`${project}.test`], expiresAt });
}
