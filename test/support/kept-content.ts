import { sql } from "kysely";
import type { Executor } from "../../src/platform/selfhost/state/platform-db.js";

/**
 * Rows of a project's kept content for the quota tests: `files` new blobs and one manifest row
 * each (hashes spread over every range of hashes, from `seed`; every third row compressible).
 * Returns their bytes, and the bytes of those over 150 bytes that are compressible.
 */
export async function keepContent(
  db: Executor,
  project: string,
  files: number,
  seed = 0,
): Promise<{ content: number; variants: number }> {
  let content = 0;
  let variants = 0;
  for (let i = 0; i < files; i++) {
    const hash = (((i + seed) * 2_654_435_761) % 2 ** 32).toString(16).padStart(8, "0").repeat(4);
    const size = 100 + i;
    const compressible = i % 3 === 0 ? 1 : 0;
    content += size;
    if (compressible && size > 150) variants += size;
    await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset) VALUES (${hash}, ${size}, 0, NULL, NULL)`.execute(
      db,
    );
    await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
      VALUES (${project}, 'm', ${`/f${i}`}, ${hash}, 'text/plain', ${compressible}, 0)`.execute(db);
    await sql`INSERT INTO manifest_hashes (project_slug, manifest_id, hash, compressible)
      VALUES (${project}, 'm', ${hash}, ${compressible})`.execute(db);
  }
  return { content, variants };
}

/** `db` counting the statements run through it (`statements()`). */
export function countingStatements(db: Executor): { db: Executor; statements: () => number } {
  let statements = 0;
  const counted = db.withPlugin({
    transformQuery: (args) => {
      statements++;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  });
  return { db: counted, statements: () => statements };
}
