import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { startTestServer, tempDir } from "../support/server.js";
import { blobStoreState } from "../support/store-snapshot.js";

describe("start", () => {
  it("start: removes pack and blob files no row names (left by a crash), keeps the named ones", async () => {
    const dir = tempDir("deploy-orphans-");
    try {
      const first = await startTestServer({ dataDir: dir.path });
      const p = await createTestProject(first.urls.api, "orphans");
      await deployFiles(first.urls.api, p, { "/index.html": "kept" });
      await first.stop();
      // What a crash between a pack and its rows leaves behind, and a file of the old layout.
      const orphanPack = join(dir.path, "platform", "packs", `${"ab".repeat(12)}.pack`);
      writeFileSync(orphanPack, "stray");
      const orphanDir = join(dir.path, "platform", "blobs", "ab");
      mkdirSync(orphanDir, { recursive: true });
      const orphan = join(orphanDir, "ab".padEnd(32, "0"));
      writeFileSync(orphan, "stray");
      const second = await startTestServer({ dataDir: dir.path });
      try {
        expect(existsSync(orphanPack)).toBe(false);
        expect(existsSync(orphan)).toBe(false);
        expect(blobStoreState(dir.path)).toMatchObject({ missingFiles: [], wrongSize: [], unnamedFiles: [] });
        const home = await edgeGet(second.urls.edge, `${p.slug}.localhost`, "/");
        expect(home.body.toString()).toBe("kept");
      } finally {
        await second.stop();
      }
    } finally {
      dir.cleanup();
    }
  });
});
