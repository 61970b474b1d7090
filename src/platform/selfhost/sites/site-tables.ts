import { sql } from "kysely";
import { Pacer } from "../../../shared/event-loop.js";
import { deleteSessionRows } from "../sessions/session-rows.js";
import { deleteProjectManifests, deleteUnreferencedManifests } from "./manifest-cleanup.js";
import { isPublished, stageManifest } from "./manifest-staging.js";
import { type ManifestGeneration, manifestGeneration, manifestWritten } from "./manifest-generation.js";
import { type Executor, firstOf, forUpdate, type PlatformDatabase, rowsOf } from "../state/platform-db.js";
import { type PublishRequest, recordRevision, upsertSiteExpiry } from "./revision-record.js";
import { replaceHosts } from "./site-hosts.js";

/**
 * Writes of the published manifest: which revision each project serves, on which hostnames, and
 * the files of each revision. Each method is one transaction, so the edge sees the old state or
 * the new one, never a mix.
 */
export class SiteTables {
  /** Moves on every write here (and any other write of the same tables): readers compare it. */
  readonly generation: ManifestGeneration;

  constructor(private readonly database: PlatformDatabase) {
    this.generation = manifestGeneration(database);
  }

  /** Runs a write of the project's manifest in one transaction, then tells the readers. */
  private async write<T>(projectSlug: string, work: (trx: Executor) => Promise<T>): Promise<T> {
    try {
      return await this.database.transaction(work);
    } finally {
      manifestWritten(this.database, projectSlug);
    }
  }

  /**
   * Finds or writes the manifest of its upload session (manifest-staging.ts: an equal one of the
   * project is shared, a new one written in slices, as a delta when small), then in one transaction
   * records the revision naming it, with the charge of its rows, and makes it the production
   * revision (a preview only moves the site's expiry: production stays where it was). The edge
   * sees it whole with that transaction; if it fails, a manifest written for it goes. A revision
   * published already keeps its manifest (a publish run again).
   */
  async publish(input: PublishRequest): Promise<void> {
    const { projectSlug: slug, revisionId } = input;
    const pacer = input.pacer ?? new Pacer();
    const published = await isPublished(this.database, slug, revisionId);
    // What a publish that crashed while writing its manifest left (one read when nothing did).
    if (!published) await deleteUnreferencedManifests(this.database, slug, pacer);
    const manifest = published ? undefined : await stageManifest(this.database, input, pacer);
    try {
      const record = { ...input, manifest };
      await this.write(slug, (trx) => recordRevision(trx, this.database.dialect, record));
    } catch (error) {
      if (manifest?.fresh) await deleteUnreferencedManifests(this.database, slug, pacer);
      throw error;
    }
  }

  /**
   * Points the project's hostnames at one of its revisions, from `now` (what Last-Modified then
   * says); false (nothing changed) when it has none such.
   */
  async promote(projectSlug: string, revisionId: string, now: number): Promise<boolean> {
    return this.write(projectSlug, async (trx) => {
      // The site's row first (on PostgreSQL): a prune that holds it finishes before the revision
      // is looked for, so production never moves to a revision pruned meanwhile.
      await sql`SELECT 1 AS locked FROM sites WHERE project_slug = ${projectSlug}
        ${forUpdate(this.database.dialect)}`.execute(trx);
      const known = await firstOf(
        trx,
        sql`SELECT 1 AS known FROM revisions WHERE project_slug = ${projectSlug} AND revision_id = ${revisionId}`,
      );
      if (known === undefined) return false;
      await sql`UPDATE sites SET revision_id = ${revisionId}, production_since = ${now}
        WHERE project_slug = ${projectSlug}`.execute(trx);
      return true;
    });
  }

  /**
   * Forgets revisions of a project, their files and rules, never the one its hostnames serve: in
   * one transaction what makes them visible (their `revisions` rows, rules and aliases), then the
   * manifests no revision names any more in slices (100,000 rows in one statement would hold the
   * thread the service shares), then `after` runs in a transaction of its own (the project's
   * charge, counted without them).
   */
  async prune(
    projectSlug: string,
    revisionIds: string[],
    after?: (trx: Executor) => Promise<unknown>,
  ): Promise<void> {
    const removed = await this.write(projectSlug, async (trx) => {
      // The site's row is locked (on PostgreSQL) so a promote cannot move production meanwhile.
      const site = await firstOf(
        trx,
        sql<{ revision_id: string | null }>`SELECT revision_id FROM sites WHERE project_slug = ${projectSlug}
          ${forUpdate(this.database.dialect)}`,
      );
      const removed: string[] = [];
      for (const revisionId of revisionIds) {
        if (revisionId === site?.revision_id) continue;
        const where = sql`project_slug = ${projectSlug} AND revision_id = ${revisionId}`;
        await sql`DELETE FROM revision_rules WHERE ${where}`.execute(trx);
        await sql`DELETE FROM site_aliases WHERE ${where}`.execute(trx);
        await sql`DELETE FROM revisions WHERE ${where}`.execute(trx);
        removed.push(revisionId);
      }
      return removed;
    });
    if (removed.length > 0) await deleteUnreferencedManifests(this.database, projectSlug, new Pacer());
    if (after) await this.database.transaction(after);
  }

  /** Changes the hostnames and expiry of a project, published or not. */
  async update(
    projectSlug: string,
    hostnames: string[],
    expiresAt: number,
    canonical?: { hostname: string; url: string },
  ): Promise<void> {
    await this.write(projectSlug, async (trx) => {
      await upsertSiteExpiry(trx, projectSlug, expiresAt);
      await replaceHosts(trx, this.database.dialect, projectSlug, hostnames, canonical);
    });
  }

  /**
   * Removes every trace of a project from the published manifest and its upload sessions: in one
   * transaction what the edge finds it by, with `after` (its charge); then its manifests and its
   * sessions' rows in slices, its sessions last.
   */
  async remove(projectSlug: string, after?: (trx: Executor) => Promise<unknown>): Promise<void> {
    const sessions = await this.write(projectSlug, async (trx) => {
      await sql`DELETE FROM site_hosts WHERE project_slug = ${projectSlug}`.execute(trx);
      await sql`DELETE FROM site_aliases WHERE project_slug = ${projectSlug}`.execute(trx);
      await sql`DELETE FROM sites WHERE project_slug = ${projectSlug}`.execute(trx);
      await sql`DELETE FROM revision_rules WHERE project_slug = ${projectSlug}`.execute(trx);
      await sql`DELETE FROM revisions WHERE project_slug = ${projectSlug}`.execute(trx);
      await after?.(trx);
      return rowsOf(
        trx,
        sql<{ id: string }>`SELECT id FROM upload_sessions WHERE project_slug = ${projectSlug}`,
      );
    });
    const pacer = new Pacer();
    await deleteProjectManifests(this.database, projectSlug, pacer);
    for (const { id } of sessions) await deleteSessionRows(this.database, id, pacer);
    await sql`DELETE FROM upload_sessions WHERE project_slug = ${projectSlug}`.execute(this.database.db);
  }

  /** The revision a project's alias serves now, or undefined. */
  async aliasRevision(projectSlug: string, alias: string): Promise<string | undefined> {
    const row = await firstOf(
      this.database.db,
      sql<{ revision_id: string }>`SELECT revision_id FROM site_aliases
        WHERE project_slug = ${projectSlug} AND alias = ${alias}`,
    );
    return row?.revision_id;
  }

  /** Every content hash a project's revisions and sessions name. */
  async hashesOf(projectSlug: string): Promise<string[]> {
    const rows = await rowsOf(
      this.database.db,
      sql<{
        hash: string;
      }>`SELECT hash FROM manifest_hashes WHERE project_slug = ${projectSlug}
        UNION SELECT hash FROM session_assets
          WHERE hash <> '' AND session_id IN (SELECT id FROM upload_sessions WHERE project_slug = ${projectSlug})`,
    );
    return rows.map((row) => row.hash);
  }
}
