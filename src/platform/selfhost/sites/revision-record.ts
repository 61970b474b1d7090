import { sql } from "kysely";
import { AliasLimitError } from "../../../core/errors.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { type Executor, firstOf, type SqlDialect } from "../state/platform-db.js";
import { completeManifest, type StagedManifest } from "./manifest-staging.js";
import { replaceHosts } from "./site-hosts.js";
import type { AddedRevision } from "../quotas/added-charge.js";

// A publish's one transaction (SiteTables.publish): the revision recorded, made production (or a
// preview's alias moved), its hostnames and rules written, its session marked published.

/** What a publish asks of the site tables (SiteTables.publish). */
export interface PublishRequest {
  projectSlug: string;
  revisionId: string;
  sessionId: string;
  /** Paces the copy of the files; slices of SLICE_MS by default. */
  pacer?: Pacer;
  hostnames: string[];
  canonical?: { hostname: string; url: string } | undefined;
  expiresAt: number;
  now: number;
  preview?: boolean;
  /** The revision's parsed `_redirects` and `_headers` (JSON), when it has either. */
  rules?: string | undefined;
  /** A preview alias to move to this revision, and how many aliases a project may have. */
  alias?: { name: string; max: number };
  /**
   * Runs last in the transaction (the quotas), told what the publish added (undefined: a revision
   * published already, nothing); what it throws undoes the publish.
   */
  check?: (trx: Executor, added: AddedRevision | undefined) => Promise<void>;
}

/**
 * Records a revision whose manifest is staged (`manifest`; none: published already) inside `trx`:
 * the alias first (a project at its alias bound publishes nothing), the revision, its rules, the
 * site's production revision or a preview's expiry, its hostnames, the session published, and
 * the caller's check last (what it throws undoes it all).
 */
export async function recordRevision(
  trx: Executor,
  dialect: SqlDialect,
  input: PublishRequest & { manifest: StagedManifest | undefined },
): Promise<void> {
  const { projectSlug: slug, revisionId, sessionId, expiresAt, now, manifest } = input;
  // First: a project at its alias bound publishes nothing.
  if (input.alias !== undefined) await moveAlias(trx, slug, input.alias, revisionId, now);
  if (manifest !== undefined) {
    await completeManifest(trx, slug, manifest);
    await sql`INSERT INTO revisions (project_slug, revision_id, created_at, row_bytes, manifest_id)
      VALUES (${slug}, ${revisionId}, ${now}, ${manifest.rowBytes}, ${manifest.id})
      ON CONFLICT DO NOTHING`.execute(trx);
  }
  if (input.rules !== undefined) {
    await sql`INSERT INTO revision_rules (project_slug, revision_id, rules)
      VALUES (${slug}, ${revisionId}, ${input.rules}) ON CONFLICT DO NOTHING`.execute(trx);
  }
  if (input.preview === true) await upsertSiteExpiry(trx, slug, expiresAt);
  else {
    await sql`INSERT INTO sites (project_slug, revision_id, expires_at, production_since)
      VALUES (${slug}, ${revisionId}, ${expiresAt}, ${now})
      ON CONFLICT (project_slug) DO UPDATE SET revision_id = excluded.revision_id,
        expires_at = excluded.expires_at, production_since = excluded.production_since`.execute(trx);
  }
  await replaceHosts(trx, dialect, slug, input.hostnames, input.canonical);
  // Published: its content is the project's now (its quota), no longer pending for its client;
  // its rows are deleted next (the revision has its files), so it names no hash any more.
  await sql`UPDATE upload_sessions SET pending_bytes = 0, asset_hashes = 0,
    published_revision = ${revisionId} WHERE id = ${sessionId}`.execute(trx);
  const added = manifest && {
    revisionId,
    ...(manifest.fresh && { manifest: { id: manifest.id, rows: manifest.fresh.rows } }),
  };
  await input.check?.(trx, added);
}

/** Points a project's alias at a revision; AliasLimitError when it would be one alias too many. */
async function moveAlias(
  trx: Executor,
  slug: string,
  alias: { name: string; max: number },
  revisionId: string,
  now: number,
): Promise<void> {
  const others = await firstOf(
    trx,
    sql<{ count: number | string }>`SELECT COUNT(*) AS count FROM site_aliases
      WHERE project_slug = ${slug} AND alias <> ${alias.name}`,
  );
  if (Number(others?.count ?? 0) >= alias.max) {
    throw new AliasLimitError(`a project has at most ${alias.max} aliases; this one has ${alias.max}`);
  }
  await sql`INSERT INTO site_aliases (project_slug, alias, revision_id, since)
    VALUES (${slug}, ${alias.name}, ${revisionId}, ${now})
    ON CONFLICT (project_slug, alias) DO UPDATE SET revision_id = excluded.revision_id,
      since = excluded.since`.execute(trx);
}

/** Sets a site's expiry, making its row (serving nothing yet) when it has none. */
export async function upsertSiteExpiry(trx: Executor, projectSlug: string, expiresAt: number): Promise<void> {
  await sql`INSERT INTO sites (project_slug, revision_id, expires_at) VALUES (${projectSlug}, NULL, ${expiresAt})
    ON CONFLICT (project_slug) DO UPDATE SET expires_at = excluded.expires_at`.execute(trx);
}
