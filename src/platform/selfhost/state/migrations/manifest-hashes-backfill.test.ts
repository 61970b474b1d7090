import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { describePostgres, testPostgres } from "../../../../../test/support/postgres.js";
import type { PlatformDatabase } from "../platform-db.js";
import { openPlatformDatabase } from "../sqlite-database.js";
import { fillManifestHashes } from "./manifest-hashes-backfill.js";

// The manifest_hashes of the manifests kept when the table was added (sqlite/0007, postgres/0013),
// two rows a slice: manifests spanning slices, slices spanning manifests, a hash of two paths in
// two slices.

/** Rows of manifest_files: [manifest, path, hash, compressible, removed]. */
const FILES: [string, string, string, number, number][] = [
  ["m1", "/a", "h1", 0, 0],
  ["m1", "/b", "h2", 0, 0],
  ["m1", "/c", "h1", 1, 0], // h1 again, compressible, in the next slice
  ["m2", "/a", "h3", 0, 0],
  ["m2", "/b", "", 0, 1], // a tombstone: no hash
  ["m3", "/z", "h2", 1, 0],
];

const EXPECTED = [
  { manifest_id: "m1", hash: "h1", compressible: 1 },
  { manifest_id: "m1", hash: "h2", compressible: 0 },
  { manifest_id: "m2", hash: "h3", compressible: 0 },
  { manifest_id: "m3", hash: "h2", compressible: 1 },
];

function backfillSuite(name: string, postgres: boolean): void {
  describe(name, () => {
    let dir: string;
    let database: PlatformDatabase;
    afterEach(async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("fillManifestHashes: each manifest's distinct hashes of rows not removed, compressible if one of its paths is, in slices; run again, the same", async () => {
      dir = mkdtempSync(join(tmpdir(), "manifest-hashes-backfill-"));
      database = await openPlatformDatabase(dir, postgres ? testPostgres() : undefined);
      const db = database.db;
      for (const [manifest, path, hash, compressible, removed] of FILES) {
        await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
          VALUES ('p', ${manifest}, ${path}, ${hash}, 'text/plain', ${compressible}, ${removed})`.execute(db);
      }
      const written = async () =>
        (
          await sql<{ manifest_id: string; hash: string; compressible: number }>`SELECT manifest_id, hash,
            compressible FROM manifest_hashes WHERE project_slug = 'p' ORDER BY manifest_id, hash`.execute(db)
        ).rows.map((row) => ({ ...row, compressible: Number(row.compressible) }));
      const fill = () =>
        fillManifestHashes(db as unknown as Kysely<unknown>, database.dialect, {
          inSlice: (work) => work(db as unknown as Kysely<unknown>),
          sliceRows: 2,
        });
      await fill();
      expect(await written()).toEqual(EXPECTED);
      // As after a crash on SQLite, the migration runs again over what it wrote.
      await fill();
      expect(await written()).toEqual(EXPECTED);
    });
  });
}

backfillSuite("manifest_hashes backfill on SQLite", false);
await describePostgres("manifest_hashes backfill on PostgreSQL", () =>
  backfillSuite("manifest_hashes backfill", true),
);
