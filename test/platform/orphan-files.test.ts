import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { startTestServer, tempDir } from "../support/server.js";

describe("start", () => {
  it("start: removes blob files no row names (left by a crash), keeps the named ones", async () => {
    const dir = tempDir("deploy-orphans-");
    try {
      const first = await startTestServer({ dataDir: dir.path });
      const p = await createTestProject(first.urls.api, "orphans");
      await deployFiles(first.urls.api, p, { "/index.html": "kept" });
      await first.stop();
      // What a crash between a file and its row leaves behind.
      const orphan = "ab".padEnd(32, "0");
      const orphanDir = join(dir.path, "platform", "blobs", "ab");
      mkdirSync(orphanDir, { recursive: true });
      writeFileSync(join(orphanDir, orphan), "stray");
      const second = await startTestServer({ dataDir: dir.path });
      try {
        expect(existsSync(join(orphanDir, orphan))).toBe(false);
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
