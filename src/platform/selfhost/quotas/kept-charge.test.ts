import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlatformDatabase } from "../state/platform-db.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { keptCharge } from "./kept-charge.js";
import { VARIANT_FACTOR } from "./quota-charges.js";

let dir: string;
let database: PlatformDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kept-charge-"));
  database = await openPlatformDatabase(dir);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A manifest of `project` naming `files` new blobs (hashes spread over every range, from `seed`); returns their bytes. */
async function keep(
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
      database.db,
    );
    await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
      VALUES (${project}, 'm', ${`/f${i}`}, ${hash}, 'text/plain', ${compressible}, 0)`.execute(database.db);
  }
  return { content, variants };
}

/** keptCharge of `project` and the statements it took. */
async function charged(
  project: string,
  oneRangeRows?: number,
): Promise<{ bytes: number; statements: number }> {
  let statements = 0;
  const counted = database.db.withPlugin({
    transformQuery: (args) => {
      statements++;
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  });
  const bytes = await keptCharge(counted, "sqlite", project, 150, undefined, oneRangeRows);
  return { bytes, statements };
}

describe("keptCharge", () => {
  it("keptCharge: a project under oneRangeRows rows is summed in one statement, a larger one a range of hashes a statement, to the same charge", async () => {
    const { content, variants } = await keep("p", 200);
    const expected = content + VARIANT_FACTOR * variants;
    const small = await charged("p", 201);
    const large = await charged("p", 200);
    expect(small).toEqual({ bytes: expected, statements: 2 });
    expect(large).toEqual({ bytes: expected, statements: 65 });
  });

  it("keptCharge: counts only the project's own rows toward the bound", async () => {
    await keep("big", 300);
    await keep("small", 5, 1_000);
    expect((await charged("small", 10)).statements).toBe(2);
  });
});
