import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { capturingLogger } from "../support/log-lines.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { startTestServer } from "../support/server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("logs through an object store outage", () => {
  let store: TestObjectStore;
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => store.close());

  it("edge: 12 reads the store's outage fails are one summary line with their count and the first one's cause, no stack, no line each", async () => {
    const { logger, lines } = capturingLogger("info");
    const server = await startTestServer({ objectStore: store.settings(), edgeCacheBytes: 0, logger });
    let stopped = false;
    try {
      const p = await createTestProject(server.urls.api, "outage-log");
      await deployFiles(server.urls.api, p, { "/index.html": "<p>never read</p>", "/a.txt": "cold" });
      await store.stop();
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          edgeGet(server.urls.edge, `${p.slug}.localhost`, i % 2 ? "/" : "/a.txt"),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(503));
      // The interval's summary is written at the latest as the process stops.
      await server.stop();
      stopped = true;
      const outageLines = lines.filter((line) => line.outage !== undefined);
      expect(outageLines).toHaveLength(1);
      expect(outageLines[0]).toMatchObject({
        outage: "OBJECT_STORE_UNAVAILABLE",
        failures: 12,
        first: { code: "OBJECT_STORE_UNAVAILABLE", causeCode: "ECONNREFUSED" },
      });
      expect(lines.filter((line) => line.msg === "edge request failed")).toEqual([]);
      expect(JSON.stringify(lines)).not.toContain('"stack"');
    } finally {
      if (!stopped) await server.stop();
      await store.start();
    }
  });
});

it("createS3Client: the AWS SDK prints no notice of its own on this Node (its 9 lines are not JSON)", () => {
  const module = join(ROOT, "dist/platform/selfhost/content/s3/s3-client.js");
  const script = `const { createS3Client } = await import(${JSON.stringify(module)});
    createS3Client({ region: "us-east-1", endpoint: "http://127.0.0.1:1", forcePathStyle: true,
      credentials: { accessKeyId: "a", secretAccessKey: "b" }, timeoutMs: 1000 });
    await new Promise((resolve) => setImmediate(resolve));`;
  const env = { ...process.env };
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { env, encoding: "utf8" });
  expect(run.status).toBe(0);
  expect(run.stderr).toBe("");
  expect(run.stdout).toBe("");
});
