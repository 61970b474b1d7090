import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { addedCharge } from "./added-charge.js";
import { keepContent } from "../../../../test/support/kept-content.js";
import { fillHashes } from "../../../../test/support/revision-files.js";
import { UNLIMITED } from "./storage-limits.js";
import { keptCharge } from "./kept-charge.js";
import { chargeRowOf, recordCharge } from "./project-charges.js";
import { describePostgres, testPostgres } from "../../../../test/support/postgres.js";
import { deployed, hashOf, testPlatform, type TestPlatform } from "../../../../test/support/test-platform.js";

// Issue 32: a publish adds what its revision adds to an exact recorded charge; what it records
// must be what summing every kept revision (keptCharge) gives, on both engines.

/** Files over this many bytes have compressed variants counted (contract §1). */
const VARIANTS_ABOVE = 16;
const BIG = "a large file whose variants count, ".repeat(3);

function addedChargeSuite(name: string, postgres: boolean): void {
  describe(name, () => {
    let t: TestPlatform;
    afterEach(() => t.remove());
    const open = async () => {
      const storage = { ...UNLIMITED, diskVariantsAbove: VARIANTS_ABOVE };
      t = await testPlatform(storage, 1_000_000, postgres ? testPostgres() : undefined);
    };
    /** The recorded charge of "blue", whether exact, and the full sum of what it keeps now. */
    const charges = async () => {
      const row = await chargeRowOf(t.database.db, "blue");
      const summed = await keptCharge(t.database.db, t.database.dialect, "blue", VARIANTS_ABOVE);
      return { recorded: row?.chargedBytes, exact: row?.exact, summed };
    };
    const expectExact = async () => {
      const { recorded, exact, summed } = await charges();
      expect({ recorded, exact }).toEqual({ recorded: summed, exact: true });
    };

    it("publishRevision: every publish (whole, delta, shared manifest, content kept elsewhere, a variant newly counted, rules, a path removed) records the full sum", async () => {
      await open();
      const site: Record<string, string> = { "index.html": "<p>home</p>", "x.png": BIG, "a.css": "p{}" };
      for (let i = 0; i < 12; i++) site[`page${i}.html`] = `<p>page ${i}</p>`;
      await deployed(t, "blue", "r1", site);
      await expectExact();
      // A delta: one page changed, the PNG's content again as a compressible stylesheet (its
      // variants now count, its content not again), rules added.
      const second = { ...site, "page1.html": "<p>changed</p>", "big.css": BIG, _redirects: "/a /b 301\n" };
      await deployed(t, "blue", "r2", second);
      await expectExact();
      // The first manifest again (shared by digest: no rows), then one with a path removed and a
      // file holding content another revision has.
      await deployed(t, "blue", "r3", site);
      await expectExact();
      const third: Record<string, string> = { ...second, "page2.html": "<p>page 3</p>" };
      delete third["page5.html"];
      await deployed(t, "blue", "r4", third);
      await expectExact();
      // Most of the site changed: written whole.
      const fourth = Object.fromEntries(Object.entries(site).map(([path, text]) => [path, `${text}!`]));
      await deployed(t, "blue", "r5", fourth);
      await expectExact();
      await t.platform.pruneRevisions("blue", ["r1", "r2"]);
      await expectExact();
      await deployed(t, "blue", "r6", { ...fourth, "new.html": "<p>new</p>" });
      await expectExact();
    });

    it("publishRevision: a manifest that goes outside a prune (what a crashed publish left) makes the next publish sum the charge whole", async () => {
      await open();
      const site = { "index.html": "<p>home</p>", "a.css": "p{}", "b.css": "b{}", "c.css": "c{}" };
      await deployed(t, "blue", "r1", site);
      // A manifest a crash left after staging (no revision names it), holding content of its own,
      // counted in the charge recorded after.
      const db = t.database.db;
      await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset) VALUES (${hashOf("left")}, 1000, 0, NULL, NULL)`.execute(
        db,
      );
      await sql`INSERT INTO manifests (project_slug, id, digest, base_id, file_count, created_at)
        VALUES ('blue', 'left', NULL, NULL, NULL, 0)`.execute(db);
      await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
        VALUES ('blue', 'left', '/left', ${hashOf("left")}, 'text/plain', 0, 0)`.execute(db);
      await fillHashes(db, t.database.dialect);
      await recordCharge(db, "blue", (await charges()).summed);
      await deployed(t, "blue", "r2", { ...site, "index.html": "<p>changed</p>" });
      await expectExact();
    });
  });
}

addedChargeSuite("added charge on SQLite", false);
await describePostgres("added charge on PostgreSQL", () => addedChargeSuite("added charge", true));

describe("addedCharge", () => {
  it("addedCharge: a manifest read a slice of hashes a statement adds what one statement finds, the full sum's growth: a hash at several paths counted once, its variants where any path has it compressible", async () => {
    const dir = mkdtempSync(join(tmpdir(), "added-charge-"));
    const database = await openPlatformDatabase(dir);
    try {
      const db = database.db;
      // Kept: /f0../f59 of manifest "m", sizes 100 + i, every third compressible.
      await keepContent(db, "p", 60);
      const before = await keptCharge(db, "sqlite", "p", 150);
      const keptHash = async (path: string) =>
        (await sql<{ hash: string }>`SELECT hash FROM manifest_files WHERE path = ${path}`.execute(db))
          .rows[0]!.hash;
      const [x, y, z] = ["ab", "cd", "ef"].map((pair) => pair.repeat(16));
      for (const [hash, size] of [
        [x, 400],
        [y, 300],
        [z, 50],
      ] as const) {
        await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset) VALUES (${hash}, ${size}, 0, NULL, NULL)`.execute(
          db,
        );
      }
      // Paths a..i, five distinct hashes (their rows' hashes, written as a publish does below).
      const rows: [string, string, number, number][] = [
        ["/a", x!, 0, 0],
        ["/b", y!, 0, 0],
        ["/c", await keptHash("/f52"), 1, 0], // kept, not compressible there: its variants now count
        ["/d", await keptHash("/f51"), 1, 0], // kept compressible: nothing
        ["/e", x!, 0, 0],
        ["/f", y!, 1, 0], // compressible in a later slice than its first path
        ["/g", "", 0, 1], // a tombstone
        ["/h", z!, 1, 0], // under the variants' bound
        ["/i", x!, 1, 0],
      ];
      for (const [path, hash, compressible, removed] of rows) {
        await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
          VALUES ('p', 'n', ${path}, ${hash}, 'text/plain', ${compressible}, ${removed})`.execute(db);
      }
      await fillHashes(db, "sqlite");
      await sql`INSERT INTO revisions (project_slug, revision_id, created_at, row_bytes, manifest_id)
        VALUES ('p', 'r', 0, 2_000, 'n')`.execute(db);
      await sql`INSERT INTO revision_rules (project_slug, revision_id, rules) VALUES ('p', 'r', '{"é":1}')`.execute(
        db,
      );
      const grown = (await keptCharge(db, "sqlite", "p", 150)) - before;
      const added = { revisionId: "r", manifest: { id: "n", rows: rows.length } };
      expect(await addedCharge(db, "sqlite", "p", added, 150, undefined, 3)).toBe(grown);
      expect(await addedCharge(db, "sqlite", "p", added, 150)).toBe(grown);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
