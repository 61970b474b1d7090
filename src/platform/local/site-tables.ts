import type { PlatformDatabase } from "./database.js";

/**
 * Counts the writes of the published manifest on one connection, so that readers (the edge) can
 * keep what they read in memory until it moves. The platform database is written by this process
 * only (ARCHITECTURE.md), through the same connection the edge reads.
 */
export interface ManifestGeneration {
  /** Changes on every insert, update or delete of sites, hostnames, revisions or their files. */
  readonly value: number;
}

// The tables the edge reads; blobs are left out (a blob row never changes, and one is only
// deleted once no revision file names it).
const MANIFEST_TABLES = ["sites", "site_hosts", "revisions", "revision_files", "revision_rules"] as const;
const generations = new WeakMap<PlatformDatabase, { value: number }>();

/**
 * The manifest generation of a connection. The first call installs temporary triggers that bump
 * it from SQLite itself, so no writer can forget to (SiteTables, the garbage collector, plain SQL
 * in tests); a rolled-back write bumps it too, which only costs readers a re-read.
 */
export function manifestGeneration(db: PlatformDatabase): ManifestGeneration {
  let generation = generations.get(db);
  if (generation) return generation;
  const counter = { value: 0 };
  generation = counter;
  db.function("manifest_written", { deterministic: false }, () => {
    counter.value++;
    return null;
  });
  for (const table of MANIFEST_TABLES) {
    for (const event of ["INSERT", "UPDATE", "DELETE"]) {
      // TEMP triggers live in this connection only and never touch the database file.
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS manifest_${table}_${event.toLowerCase()} AFTER ${event} ON ${table}
         BEGIN SELECT manifest_written(); END`,
      );
    }
  }
  generations.set(db, counter);
  return generation;
}

/**
 * Writes of the published manifest: which revision each project serves, on which hostnames, and
 * the files of each revision. Each method is one transaction, so the edge sees the old state or
 * the new one, never a mix.
 */
export class SiteTables {
  /** Moves on every write here (and any other write of the same tables): readers compare it. */
  readonly generation: ManifestGeneration;
  private readonly statements;

  constructor(private readonly db: PlatformDatabase) {
    this.generation = manifestGeneration(db);
    this.statements = {
      insertRevision: db.prepare(
        "INSERT OR IGNORE INTO revisions (project_slug, revision_id, created_at) VALUES (?, ?, ?)",
      ),
      copyFiles: db.prepare(
        `INSERT OR IGNORE INTO revision_files (project_slug, revision_id, path, hash, content_type)
         SELECT ?, ?, path, hash, content_type FROM session_assets WHERE session_id = ?`,
      ),
      insertRules: db.prepare(
        "INSERT OR IGNORE INTO revision_rules (project_slug, revision_id, rules) VALUES (?, ?, ?)",
      ),
      deleteRules: db.prepare("DELETE FROM revision_rules WHERE project_slug = ?"),
      upsertSite: db.prepare(
        `INSERT INTO sites (project_slug, revision_id, expires_at, production_since) VALUES (?, ?, ?, ?)
         ON CONFLICT (project_slug) DO UPDATE SET revision_id = excluded.revision_id,
           expires_at = excluded.expires_at, production_since = excluded.production_since`,
      ),
      upsertSiteExpiry: db.prepare(
        `INSERT INTO sites (project_slug, revision_id, expires_at) VALUES (?, NULL, ?)
         ON CONFLICT (project_slug) DO UPDATE SET expires_at = excluded.expires_at`,
      ),
      hasRevision: db.prepare("SELECT 1 FROM revisions WHERE project_slug = ? AND revision_id = ?").pluck(),
      productionOf: db.prepare("SELECT revision_id FROM sites WHERE project_slug = ?").pluck(),
      setProduction: db.prepare(
        "UPDATE sites SET revision_id = ?, production_since = ? WHERE project_slug = ?",
      ),
      deleteRevisionFiles: db.prepare(
        "DELETE FROM revision_files WHERE project_slug = ? AND revision_id = ?",
      ),
      deleteRevision: db.prepare("DELETE FROM revisions WHERE project_slug = ? AND revision_id = ?"),
      deleteRevisionRules: db.prepare(
        "DELETE FROM revision_rules WHERE project_slug = ? AND revision_id = ?",
      ),
      deleteHosts: db.prepare("DELETE FROM site_hosts WHERE project_slug = ?"),
      insertHost: db.prepare(
        "INSERT OR REPLACE INTO site_hosts (hostname, project_slug, canonical_url) VALUES (?, ?, ?)",
      ),
      deleteSite: db.prepare("DELETE FROM sites WHERE project_slug = ?"),
      deleteFiles: db.prepare("DELETE FROM revision_files WHERE project_slug = ?"),
      deleteRevisions: db.prepare("DELETE FROM revisions WHERE project_slug = ?"),
      deleteSessionAssets: db.prepare(
        "DELETE FROM session_assets WHERE session_id IN (SELECT id FROM upload_sessions WHERE project_slug = ?)",
      ),
      deleteSessionBlobs: db.prepare(
        "DELETE FROM session_blobs WHERE session_id IN (SELECT id FROM upload_sessions WHERE project_slug = ?)",
      ),
      deleteSessions: db.prepare("DELETE FROM upload_sessions WHERE project_slug = ?"),
      // Published: its content is the project's now (its quota), no longer pending for its client.
      clearPending: db.prepare("UPDATE upload_sessions SET pending_bytes = 0 WHERE id = ?"),
      selectHashes: db.prepare(
        `SELECT hash FROM revision_files WHERE project_slug = ?
         UNION SELECT hash FROM session_assets
           WHERE session_id IN (SELECT id FROM upload_sessions WHERE project_slug = ?)`,
      ),
    };
  }

  /**
   * Records the revision's files from its upload session and makes it the production revision (a
   * preview only moves the site's expiry: production stays where it was).
   */
  publish(input: {
    projectSlug: string;
    revisionId: string;
    sessionId: string;
    hostnames: string[];
    canonical?: { hostname: string; url: string } | undefined;
    expiresAt: number;
    now: number;
    preview?: boolean;
    /** The revision's parsed `_redirects` and `_headers` (JSON), when it has either. */
    rules?: string;
  }): void {
    const s = this.statements;
    this.db.transaction(() => {
      s.insertRevision.run(input.projectSlug, input.revisionId, input.now);
      s.copyFiles.run(input.projectSlug, input.revisionId, input.sessionId);
      if (input.rules !== undefined) s.insertRules.run(input.projectSlug, input.revisionId, input.rules);
      if (input.preview === true) s.upsertSiteExpiry.run(input.projectSlug, input.expiresAt);
      else s.upsertSite.run(input.projectSlug, input.revisionId, input.expiresAt, input.now);
      this.replaceHosts(input.projectSlug, input.hostnames, input.canonical);
      s.clearPending.run(input.sessionId);
    })();
  }

  /**
   * Points the project's hostnames at one of its revisions, from `now` (what Last-Modified then
   * says); false (nothing changed) when it has none such.
   */
  promote(projectSlug: string, revisionId: string, now: number): boolean {
    const s = this.statements;
    return this.db.transaction(() => {
      if (s.hasRevision.get(projectSlug, revisionId) === undefined) return false;
      s.setProduction.run(revisionId, now, projectSlug);
      return true;
    })();
  }

  /** Forgets revisions of a project, their files and rules, never the one its hostnames serve. */
  prune(projectSlug: string, revisionIds: string[]): void {
    const s = this.statements;
    this.db.transaction(() => {
      const production = s.productionOf.get(projectSlug);
      for (const revisionId of revisionIds) {
        if (revisionId === production) continue;
        s.deleteRevisionFiles.run(projectSlug, revisionId);
        s.deleteRevisionRules.run(projectSlug, revisionId);
        s.deleteRevision.run(projectSlug, revisionId);
      }
    })();
  }

  /** Changes the hostnames and expiry of a project, published or not. */
  update(
    projectSlug: string,
    hostnames: string[],
    expiresAt: number,
    canonical?: { hostname: string; url: string },
  ): void {
    this.db.transaction(() => {
      this.statements.upsertSiteExpiry.run(projectSlug, expiresAt);
      this.replaceHosts(projectSlug, hostnames, canonical);
    })();
  }

  /** Removes every trace of a project from the published manifest and its upload sessions. */
  remove(projectSlug: string): void {
    const s = this.statements;
    this.db.transaction(() => {
      s.deleteHosts.run(projectSlug);
      s.deleteSite.run(projectSlug);
      s.deleteFiles.run(projectSlug);
      s.deleteRules.run(projectSlug);
      s.deleteRevisions.run(projectSlug);
      s.deleteSessionAssets.run(projectSlug);
      s.deleteSessionBlobs.run(projectSlug);
      s.deleteSessions.run(projectSlug);
    })();
  }

  /** Every content hash a project's revisions and sessions name. */
  hashesOf(projectSlug: string): string[] {
    return (this.statements.selectHashes.all(projectSlug, projectSlug) as { hash: string }[]).map(
      (r) => r.hash,
    );
  }

  private replaceHosts(
    projectSlug: string,
    hostnames: string[],
    canonical: { hostname: string; url: string } | undefined,
  ): void {
    this.statements.deleteHosts.run(projectSlug);
    for (const hostname of hostnames) {
      const names = canonical !== undefined && canonical.hostname !== hostname ? canonical.url : null;
      this.statements.insertHost.run(hostname, projectSlug, names);
    }
  }
}
