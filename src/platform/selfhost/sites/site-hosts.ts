import { sql } from "kysely";
import type { Executor, SqlDialect } from "../state/platform-db.js";

/**
 * Makes the project's hosts `hostnames`, each naming the canonical URL unless it is the canonical
 * host; a hostname another project held moves here. On PostgreSQL one statement, which deletes
 * only the hosts dropped and writes only those that change (a republish on the same names writes
 * none); on SQLite, whose writes are in this process, all deleted and inserted again.
 */
export async function replaceHosts(
  trx: Executor,
  dialect: SqlDialect,
  projectSlug: string,
  hostnames: string[],
  canonical: { hostname: string; url: string } | undefined,
): Promise<void> {
  const urlOf = (hostname: string) =>
    canonical !== undefined && canonical.hostname !== hostname ? canonical.url : null;
  if (dialect === "postgres") {
    // One row per name: a statement may not write one row twice.
    const names = [...new Set(hostnames)];
    await sql`WITH dropped AS (DELETE FROM site_hosts
        WHERE project_slug = ${projectSlug} AND NOT (hostname = ANY(CAST(${names} AS TEXT[]))))
      INSERT INTO site_hosts AS h (hostname, project_slug, canonical_url)
      SELECT name, CAST(${projectSlug} AS TEXT), url
      FROM unnest(CAST(${names} AS TEXT[]), CAST(${names.map(urlOf)} AS TEXT[])) AS wanted (name, url)
      ON CONFLICT (hostname) DO UPDATE SET project_slug = excluded.project_slug,
        canonical_url = excluded.canonical_url
      WHERE (h.project_slug, h.canonical_url) IS DISTINCT FROM (excluded.project_slug, excluded.canonical_url)`.execute(
      trx,
    );
    return;
  }
  await sql`DELETE FROM site_hosts WHERE project_slug = ${projectSlug}`.execute(trx);
  for (const hostname of hostnames) {
    await sql`INSERT INTO site_hosts (hostname, project_slug, canonical_url) VALUES (${hostname}, ${projectSlug}, ${urlOf(hostname)})
      ON CONFLICT (hostname) DO UPDATE SET project_slug = excluded.project_slug,
        canonical_url = excluded.canonical_url`.execute(trx);
  }
}
