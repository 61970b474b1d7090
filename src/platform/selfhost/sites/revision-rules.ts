import { sql } from "kysely";
import {
  decodeRulesFile,
  HEADERS_FILE,
  parseSiteRules,
  REDIRECTS_FILE,
  type SiteRules,
} from "../../../core/site-rules/index.js";
import type { BlobReader } from "../content/blob-reader.js";
import { type PlatformDatabase, rowsOf } from "../state/platform-db.js";

/**
 * Reads and parses the rules files of an upload session's manifest (at the site's root). Returns
 * their JSON, or undefined when the site has neither; throws InvalidSiteConfigError naming the
 * file and line when one does not parse, so nothing is published.
 */
export async function readSessionRules(
  database: PlatformDatabase,
  reader: BlobReader,
  sessionId: string,
): Promise<string | undefined> {
  const paths = sql.join([`/${REDIRECTS_FILE}`, `/${HEADERS_FILE}`]);
  // A delta session (sessions/delta-open.ts) names a file its base has unchanged by no row of its
  // own: the base's then, unless the session has a row of the path (changed, or a tombstone).
  const rows = await rowsOf(
    database.db,
    sql<{ path: string; hash: string }>`SELECT path, hash FROM session_assets
      WHERE session_id = ${sessionId} AND path IN (${paths}) AND hash <> ''
      UNION ALL SELECT f.path, f.hash FROM upload_sessions u
        JOIN manifest_files f ON f.project_slug = u.project_slug AND f.manifest_id = u.base_manifest_id
      WHERE u.id = ${sessionId} AND f.path IN (${paths}) AND f.removed = 0
        AND NOT EXISTS (SELECT 1 FROM session_assets a WHERE a.session_id = u.id AND a.path = f.path)`,
  );
  if (rows.length === 0) return undefined;
  const text = async (name: string): Promise<string | undefined> => {
    const row = rows.find((candidate) => candidate.path === `/${name}`);
    return row ? decodeRulesFile(await reader.read(row.hash), name) : undefined;
  };
  const rules: SiteRules = parseSiteRules({
    redirects: await text(REDIRECTS_FILE),
    headers: await text(HEADERS_FILE),
  });
  return JSON.stringify(rules);
}
