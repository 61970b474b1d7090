import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createTestProject } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer, tempDir } from "../support/server.js";
import { canonicalPath } from "../support/site-paths.js";
import { databaseFiles, integrityCheck } from "../support/store-snapshot.js";
import { completeDeploy, prepareFiles } from "../support/upload-flow.js";

/** The key columns of session_assets, in their order. */
function sessionAssetsKey(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const columns = db.prepare("PRAGMA table_info(session_assets)").all() as { name: string; pk: number }[];
    return columns
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
  } finally {
    db.close();
  }
}

/**
 * Gives session_assets the key it had before: (session_id, path), rows kept; that code came before
 * the Migrator, so the table of applied migrations goes too.
 */
function toKeyByPath(file: string): void {
  const db = new Database(file);
  try {
    db.exec(`ALTER TABLE session_assets RENAME TO newer; DROP INDEX IF EXISTS session_assets_hash;
      CREATE TABLE session_assets (session_id TEXT NOT NULL, path TEXT NOT NULL, hash TEXT NOT NULL,
        size INTEGER NOT NULL, content_type TEXT NOT NULL, PRIMARY KEY (session_id, path)) WITHOUT ROWID;
      CREATE INDEX session_assets_hash ON session_assets(hash);
      INSERT INTO session_assets SELECT session_id, path, hash, size, content_type FROM newer;
      DROP TABLE newer; DROP TABLE platform_migration; DROP TABLE platform_migration_lock;`);
  } finally {
    db.close();
  }
}

describe("a data folder whose session_assets is keyed by path", () => {
  it("start: keeps session_assets keyed by path (sqlite/0008), and a session opened before the restart uploads and publishes", async () => {
    const dir = tempDir("deploy-session-key-");
    try {
      const files: Record<string, string> = { "/index.html": "<h1>opened before</h1>" };
      for (let i = 0; i < 25; i++) files[`/docs/page-${i}.html`] = `<p>page ${i}</p>`;
      const first = await startTestServer({ dataDir: dir.path });
      const p = await createTestProject(first.urls.api, "session-key");
      const { prepared, byHash } = await prepareFiles(first.urls.api, p, files);
      await first.stop();
      const platform = databaseFiles(dir.path).platform;
      toKeyByPath(platform);
      expect(sessionAssetsKey(platform)).toEqual(["session_id", "path"]);

      const second = await startTestServer({ dataDir: dir.path });
      try {
        expect(sessionAssetsKey(platform)).toEqual(["session_id", "path"]);
        // The same session, its upload URL on the new process's port.
        const old = new URL(prepared.urls.upload);
        const uploadUrl = new URL(old.pathname + old.search, second.urls.upload).href;
        let completionJwt: string = prepared.uploadJwt;
        for (const bucket of prepared.buckets as string[][]) {
          const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
          const uploaded = await uploadBucket(uploadUrl, prepared.uploadJwt, parts);
          expect([201, 202], JSON.stringify(uploaded.body)).toContain(uploaded.status);
          if (uploaded.status === 201) completionJwt = uploaded.body.result.jwt;
        }
        const deployed = await completeDeploy(second.urls.api, p, prepared.deployId, completionJwt);
        expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
        for (const [path, body] of Object.entries(files)) {
          const served = await edgeGet(second.urls.edge, `${p.slug}.localhost`, canonicalPath(path));
          expect(served.body.toString(), path).toBe(body);
        }
      } finally {
        await second.stop();
      }
      expect(integrityCheck(platform)).toEqual(["ok"]);
    } finally {
      dir.cleanup();
    }
  });
});
