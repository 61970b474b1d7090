import { sql } from "kysely";
import { PREVIEW_ALIAS, PROJECT_SLUG, REVISION_ID } from "../../../core/formats.js";
import type { SiteTarget } from "../../../core/published-site.js";
import { type Executor, firstOf } from "../state/platform-db.js";

// What a Host value serves, read from the published manifest (PublishedSites keeps it).

/** A live answer for a host, kept with its expiry: the clock moves without any write. */
export interface Live {
  target: SiteTarget;
  expiresAt: number;
}

/** What a Host value may serve: a revision, a production revision, both (a custom hostname shaped like a revision host) or neither. */
export interface HostEntry {
  pinned: Live | undefined;
  production: Live | undefined;
  /** The manifest generation when it was read. */
  readAt: number;
  /** The projects whose writes may change it; undefined when any may (no project holds the hostname yet). */
  projects: readonly string[] | undefined;
}

// `<revisionId>--<slug>` or `<alias>--<slug>`: neither a revision id nor an alias holds `--`.
const PINNED_LABEL = /^([a-z0-9-]+?)--([a-z0-9-]+)$/;

/**
 * What Host `hostname` (normalized) serves, read from the published manifest at generation
 * `readAt`: its pinned revision or preview (a `<label>--<slug>` host under `suffix`), its
 * production revision, and the projects whose writes may change that. Expiry is read, not
 * filtered on: what is cached must not depend on the time it was read.
 */
export async function readHostEntry(
  db: Executor,
  suffix: string,
  hostname: string,
  readAt: number,
): Promise<HostEntry> {
  let pinned: Live | undefined;
  const labelled = pinnedHost(suffix, hostname);
  const revision = labelled && REVISION_ID.test(labelled.label) ? labelled : undefined;
  if (labelled !== undefined && revision === undefined) pinned = await readAlias(db, labelled);
  if (revision) {
    const row = await firstOf(
      db,
      sql<{ expires_at: number | string; created_at: number | string }>`SELECT s.expires_at, r.created_at
          FROM sites s JOIN revisions r ON r.project_slug = s.project_slug
          WHERE s.project_slug = ${revision.projectSlug} AND r.revision_id = ${revision.label}`,
    );
    if (row)
      pinned = {
        target: Object.freeze({
          projectSlug: revision.projectSlug,
          revisionId: revision.label,
          immutable: true,
          publishedAt: Number(row.created_at),
        }),
        expiresAt: Number(row.expires_at),
      };
  }
  let production: Live | undefined;
  const row = await firstOf(
    db,
    sql<{
      project_slug: string;
      revision_id: string;
      expires_at: number | string;
      created_at: number | string;
      canonical_url: string | null;
    }>`SELECT s.project_slug, s.revision_id, s.expires_at,
          COALESCE(s.production_since, r.created_at) AS created_at, h.canonical_url FROM site_hosts h
        JOIN sites s ON s.project_slug = h.project_slug
        JOIN revisions r ON r.project_slug = s.project_slug AND r.revision_id = s.revision_id
        WHERE h.hostname = ${hostname}`,
  );
  if (row) {
    const target: SiteTarget = {
      projectSlug: row.project_slug,
      revisionId: row.revision_id,
      immutable: false,
      publishedAt: Number(row.created_at),
    };
    if (row.canonical_url !== null) Object.assign(target, { canonicalUrl: row.canonical_url });
    production = { target: Object.freeze(target), expiresAt: Number(row.expires_at) };
  }
  // A hostname no project holds may be taken by any: such an entry goes with any write.
  const projects = row ? [row.project_slug] : undefined;
  if (projects !== undefined && labelled !== undefined) projects.push(labelled.projectSlug);
  return { pinned, production, readAt, projects };
}

/** The revision an alias host (`<alias>--<slug>`) serves now: a preview, whose files may move. */
async function readAlias(
  db: Executor,
  host: { projectSlug: string; label: string },
): Promise<Live | undefined> {
  if (!PREVIEW_ALIAS.test(host.label)) return undefined;
  const row = await firstOf(
    db,
    sql<{ revision_id: string; since: number | string; expires_at: number | string }>`SELECT a.revision_id,
          a.since, s.expires_at FROM site_aliases a
        JOIN sites s ON s.project_slug = a.project_slug
        JOIN revisions r ON r.project_slug = a.project_slug AND r.revision_id = a.revision_id
        WHERE a.project_slug = ${host.projectSlug} AND a.alias = ${host.label}`,
  );
  if (!row) return undefined;
  const target = { projectSlug: host.projectSlug, revisionId: row.revision_id, immutable: false };
  return {
    target: Object.freeze({ ...target, preview: true, publishedAt: Number(row.since) }),
    expiresAt: Number(row.expires_at),
  };
}

/** Splits `<label>--<slug>.<sitesDomain>` (a revision id or an alias); a slug never holds `--`. */
function pinnedHost(suffix: string, hostname: string): { projectSlug: string; label: string } | undefined {
  if (!hostname.endsWith(suffix)) return undefined;
  const match = PINNED_LABEL.exec(hostname.slice(0, -suffix.length));
  if (!match || !PROJECT_SLUG.test(match[2]!)) return undefined;
  return { label: match[1]!, projectSlug: match[2]! };
}
