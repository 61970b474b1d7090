import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { describePostgres, testPostgres } from "../../../../test/support/postgres.js";
import {
  deployed,
  hashOf,
  manifestOf,
  publishSession,
  testPlatform,
  type TestPlatform,
  uploadInto,
} from "../../../../test/support/test-platform.js";

// Issue 32: what asks which manifests name a hash reads manifest_hashes, so each manifest's rows
// there must be the distinct hashes of its rows not removed, compressible when one of its paths
// is, however it was written: whole, as a delta session's rows, or as a delta found at publish.

type Row = { manifest_id: string; hash: string; compressible: number };

function manifestHashesSuite(name: string, postgres: boolean): void {
  describe(name, () => {
    let t: TestPlatform;
    afterEach(() => t.remove());
    const rows = async (query: ReturnType<typeof sql<Row>>) =>
      (await query.execute(t.database.db)).rows.map((row) => ({
        ...row,
        compressible: Number(row.compressible),
      }));
    /** manifest_hashes' rows, and what manifest_files' rows say they must be. */
    const both = async () => ({
      written: await rows(sql<Row>`SELECT manifest_id, hash, compressible FROM manifest_hashes
        ORDER BY manifest_id, hash`),
      expected: await rows(sql<Row>`SELECT manifest_id, hash, MAX(compressible) AS compressible
        FROM manifest_files WHERE removed = 0 GROUP BY manifest_id, hash ORDER BY manifest_id, hash`),
    });
    const manifests = async () =>
      (
        await sql<{ id: string; base_id: string | null }>`SELECT id, base_id FROM manifests`.execute(
          t.database.db,
        )
      ).rows;

    it("publish: a manifest's hashes are its rows' distinct hashes not removed, compressible when one of their paths is; a delta's, those of its own rows", async () => {
      t = await testPlatform(undefined, 1_000_000, postgres ? testPostgres() : undefined);
      const site: Record<string, string> = { "a.css": "shared", "b.bin": "shared", "c.bin": "alone" };
      for (let i = 0; i < 12; i++) site[`f${i}.bin`] = `file ${i}`;
      // Two sessions opened before any publish: the second's is found a delta at its publish.
      const expiresAt = new Date(t.clock.ms + 60_000);
      const second: Record<string, string> = { ...site, "f0.bin": "changed", "d.css": "alone" };
      delete second["f1.bin"];
      const opened = await t.platform.openUploadSession({
        projectSlug: "blue",
        entries: manifestOf(second),
        expiresAt,
      });
      await deployed(t, "blue", "r1", site);
      await uploadInto(t, opened.sessionId, Object.values(second));
      await publishSession(t, "blue", "r2", opened.sessionId, expiresAt);
      // A delta session (opened once the project has a full manifest).
      await deployed(t, "blue", "r3", { ...site, "f2.bin": "changed again", "e.css": "file 3" });
      const kinds = (await manifests()).map((m) => m.base_id === null);
      expect(kinds.sort()).toEqual([false, false, true]);
      const { written, expected } = await both();
      expect(written).toEqual(expected);
      // r1: 14 hashes, "shared" compressible (a.css, not b.bin); r2: "changed" and "alone", this
      // one compressible there (d.css, not c.bin), f1.bin's tombstone none; r3: "changed again"
      // and "file 3", compressible there (e.css).
      expect(written).toHaveLength(18);
      expect(written.filter((row) => row.compressible === 1)).toHaveLength(3);
    });

    it("collectGarbage: keeps every blob a kept manifest names (whole, either delta, a base kept for its delta), then what only a pruned one named goes", async () => {
      t = await testPlatform(undefined, 1_000_000, postgres ? testPostgres() : undefined);
      const site: Record<string, string> = { "a.css": "shared", "b.bin": "shared" };
      for (let i = 0; i < 8; i++) site[`f${i}.bin`] = `file ${i}`;
      await deployed(t, "blue", "r1", site);
      await deployed(t, "blue", "r2", { ...site, "f0.bin": "only in r2" });
      await deployed(t, "blue", "r3", { ...site, "f1.bin": "only in r3" });
      const blobs = async () =>
        (await sql<{ hash: string }>`SELECT hash FROM blobs ORDER BY hash`.execute(t.database.db)).rows.map(
          (row) => row.hash,
        );
      const kept = await blobs();
      expect(kept).toHaveLength(1 + 8 + 2);
      // Every session expired and gone: only the manifests name the blobs now.
      expect(await t.platform.collectGarbage(t.clock.ms + 3_600_000_000)).toMatchObject({ blobsDeleted: 0 });
      expect(await blobs()).toEqual(kept);
      // r3 (production) is a delta of r1's manifest, which stays as its base.
      await t.platform.pruneRevisions("blue", ["r1", "r2"]);
      expect(await t.platform.collectGarbage(t.clock.ms + 3_600_000_000)).toMatchObject({ blobsDeleted: 1 });
      expect(await blobs()).toEqual(kept.filter((hash) => hash !== hashOf("only in r2")));
    });
  });
}

manifestHashesSuite("manifest_hashes on SQLite", false);
await describePostgres("manifest_hashes on PostgreSQL", () => manifestHashesSuite("manifest_hashes", true));
