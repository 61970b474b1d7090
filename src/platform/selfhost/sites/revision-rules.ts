import {
  decodeRulesFile,
  HEADERS_FILE,
  parseSiteRules,
  REDIRECTS_FILE,
  type SiteRules,
} from "../../../core/site-rules/index.js";
import type { BlobReader } from "../content/blob-reader.js";
import type { PlatformDatabase } from "../state/platform-db.js";

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
  const rows = await database.db
    .selectFrom("session_assets")
    .select(["path", "hash"])
    .where("session_id", "=", sessionId)
    .where("path", "in", [`/${REDIRECTS_FILE}`, `/${HEADERS_FILE}`])
    .execute();
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
