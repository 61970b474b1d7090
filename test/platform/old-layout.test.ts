import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createTestProject, deployFiles, manifestOf } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { startTestServer, tempDir } from "../support/server.js";
import { canonicalPath } from "../support/site-paths.js";
import { blobStoreState, databaseFiles, integrityCheck, readBlob } from "../support/store-snapshot.js";

/**
 * Turns a DATA_DIR into the layout of the code before packs: every blob a file of its own under
 * `platform/blobs/<two hex>/<hash>`, the `blobs` table as it was (hash, size, created_at), no
 * `packs` table, no pack files.
 */
function toLayoutBeforePacks(dataDir: string): void {
  const platform = databaseFiles(dataDir).platform;
  const db = new Database(platform);
  try {
    const rows = db.prepare("SELECT hash FROM blobs").all() as { hash: string }[];
    for (const { hash } of rows) {
      const bytes = readBlob(dataDir, hash);
      const dir = join(dataDir, "platform", "blobs", hash.slice(0, 2));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, hash), bytes);
    }
    // That code came before the Migrator too: its files have no table of applied migrations.
    db.exec(`DROP INDEX blobs_pack; DROP INDEX blobs_damaged; DROP TABLE packs;
      ALTER TABLE blobs DROP COLUMN pack; ALTER TABLE blobs DROP COLUMN pack_offset;
      ALTER TABLE blobs DROP COLUMN damaged;
      DROP TABLE platform_migration; DROP TABLE platform_migration_lock;`);
  } finally {
    db.close();
  }
  rmSync(join(dataDir, "platform", "packs"), { recursive: true, force: true });
}

describe("a data folder written before packs", () => {
  it("start: serves every blob stored one file each, and the sweep moves them into packs", async () => {
    const dir = tempDir("deploy-old-layout-");
    try {
      const files: Record<string, string> = { "/index.html": "<h1>from before packs</h1>" };
      for (let i = 0; i < 30; i++) files[`/docs/page-${i}.html`] = `<p>page ${i}</p>`.repeat(i + 1);
      const first = await startTestServer({ dataDir: dir.path });
      const p = await createTestProject(first.urls.api, "old-layout");
      await deployFiles(first.urls.api, p, files);
      await first.stop();
      toLayoutBeforePacks(dir.path);
      const columns = new Database(databaseFiles(dir.path).platform, { readonly: true });
      expect(columns.prepare("SELECT name FROM pragma_table_info('blobs')").pluck().all()).toEqual([
        "hash",
        "size",
        "created_at",
      ]);
      columns.close();

      const second = await startTestServer({ dataDir: dir.path });
      try {
        const host = `${p.slug}.localhost`;
        for (const [path, body] of Object.entries(files))
          expect((await edgeGet(second.urls.edge, host, canonicalPath(path))).body.toString(), path).toBe(
            body,
          );
        // The same content is not asked for again: it is held, in the old layout.
        const { manifest } = await manifestOf(p.slug, files);
        const redeploy = await deployFiles(second.urls.api, p, files);
        expect(redeploy.prepared.buckets).toEqual([]);

        await second.platform.sweep(new Date(second.clock.now()));
        const blobsDir = join(dir.path, "platform", "blobs");
        const left = existsSync(blobsDir)
          ? readdirSync(blobsDir, { recursive: true, withFileTypes: true })
          : [];
        expect(left.filter((entry) => entry.isFile())).toEqual([]);
        expect(readdirSync(join(dir.path, "platform", "packs")).length).toBe(1);
        expect(blobStoreState(dir.path)).toMatchObject({ missingFiles: [], wrongSize: [], unnamedFiles: [] });
        for (const [path, body] of Object.entries(files))
          expect((await edgeGet(second.urls.edge, host, canonicalPath(path))).body.toString(), path).toBe(
            body,
          );
        for (const entry of Object.values(manifest))
          expect(readBlob(dir.path, entry.hash).length).toBe(entry.size);
      } finally {
        await second.stop();
      }
      expect(integrityCheck(databaseFiles(dir.path).platform)).toEqual(["ok"]);
    } finally {
      dir.cleanup();
    }
  });
});
