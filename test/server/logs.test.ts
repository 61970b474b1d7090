import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { capturingLogger, LEVEL } from "../support/log-lines.js";
import { startTestServer, tempDir } from "../support/server.js";
import { blobLocation } from "../support/store-snapshot.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("what the server logs", () => {
  it("start: the content files no row names are logged with their number once removed", async () => {
    const dir = tempDir("deploy-logs-");
    cleanups.push(dir.cleanup);
    const first = capturingLogger();
    const server = await startTestServer({ dataDir: dir.path, logger: first.logger });
    await server.stop();
    // A clean start removes nothing and says nothing of it.
    expect(first.lines.filter((line) => line.msg === "removed content no row named")).toEqual([]);
    for (const name of ["ab", "cd"]) {
      const folder = join(dir.path, "platform", "blobs", name);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, name.padEnd(32, "0")), "stray");
    }
    const second = capturingLogger();
    const again = await startTestServer({ dataDir: dir.path, logger: second.logger });
    cleanups.push(() => again.stop());
    expect(second.lines.filter((line) => line.msg === "removed content no row named")).toEqual([
      expect.objectContaining({ level: LEVEL.info, orphans: 2 }),
    ]);
  });

  it("edge: a request the edge fails on is logged as an error with its role and the error", async () => {
    const { logger, lines } = capturingLogger();
    const server = await startTestServer({ logger });
    cleanups.push(() => server.stop());
    const project = await createTestProject(server.urls.api, "logged");
    await deployFiles(server.urls.api, project, { "/index.html": "damaged later" });
    const hash = await hashAsset(Buffer.from("damaged later"), "/index.html");
    // Cut short on disk before the edge first reads it: the read fails.
    writeFileSync(blobLocation(server.dataDir, hash).path, "x");
    const reply = await edgeGet(server.urls.edge, `${project.slug}.localhost`, "/");
    expect(reply.status).toBe(500);
    const failures = lines.filter((line) => line.msg === "edge request failed");
    expect(failures).toEqual([
      expect.objectContaining({
        level: LEVEL.error,
        role: "edge",
        err: expect.objectContaining({ message: expect.any(String) }),
      }),
    ]);
  });

  it("api and upload: each request's line names the role that answered it", async () => {
    const { logger, lines } = capturingLogger();
    const server = await startTestServer({ logger });
    cleanups.push(() => server.stop());
    await fetch(`${server.urls.api}/v1/nothing-here`);
    await fetch(`${server.urls.upload}/nothing-here`, { method: "POST" });
    const requests = lines.filter((line) => line.msg === "request");
    expect(requests).toEqual([
      expect.objectContaining({ level: LEVEL.info, role: "api", path: "/v1/nothing-here", status: 404 }),
      expect.objectContaining({ level: LEVEL.info, role: "upload", path: "/nothing-here", status: 404 }),
    ]);
  });
});
