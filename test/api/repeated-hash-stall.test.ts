import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { afterEach, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { whileWatching } from "../support/event-loop-stall.js";
import { edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { databaseFiles, queryDatabase } from "../support/store-snapshot.js";

// Issue 31, H3: previews of 20,000 paths naming one file, kept ten times, were 200,000 rows of
// revision_files naming one hash (now manifest_files, and as many only when the manifests differ). What a project has of a hash (a prepare's slices) and the sum of
// its distinct content (its quota, at prepare and publish) read every one of those rows, on the
// thread the API, uploads and the edge share: 118 and 115 ms each in the attack bench at a load of
// 12. Both now read manifest_hashes (a row a distinct hash of a manifest, issue 32), whatever
// manifest_files holds.

/** Rows naming the one file: ten revisions of 100,000 paths, written straight into the database. */
const ROWS = 1_000_000;

/** Inserts `count` rows naming `hash` into a manifest of the project, in a worker thread. */
async function seedRows(file: string, params: [count: number, slug: string, manifest: string, hash: string]) {
  const worker = new Worker(
    `const Database = require("better-sqlite3");
     const { workerData } = require("node:worker_threads");
     const db = new Database(workerData.file);
     db.pragma("busy_timeout = 10000");
     db.prepare(\`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible)
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       SELECT ?, ?, '/copy/' || i || '.js', ?, 'text/javascript', 1 FROM n\`).run(...workerData.params);
     db.close();`,
    { eval: true, workerData: { file, params } },
  );
  const [code] = (await once(worker, "exit")) as [number];
  expect(code).toBe(0);
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

it("deploy: a project whose revisions name one file a million times deploys it again without holding the event loop long (under 100 ms)", async () => {
  const server = await startTestServer({ prepareLimitPerAddress: 0, prepareLimitPerProject: 0 });
  closers.push(() => server.stop());
  const p = await createTestProject(server.urls.api, "repeated-hash");
  await deployFiles(server.urls.api, p, { "/a.js": "x" });
  const file = databaseFiles(server.dataDir).platform;
  const [kept] = queryDatabase<{ manifest_id: string; hash: string }>(
    file,
    "SELECT manifest_id, hash FROM manifest_files WHERE project_slug = ?",
    p.slug,
  );
  // Faster than ten publishes of 100,000 paths, and the same rows for the queries under test;
  // written from a worker thread, so that the server's thread (this one) keeps its timers meanwhile.
  await seedRows(file, [ROWS, p.slug, kept!.manifest_id, kept!.hash]);
  const [{ n }] = queryDatabase<{ n: number }>(
    file,
    "SELECT COUNT(*) AS n FROM manifest_files WHERE project_slug = ? AND hash = ?",
    p.slug,
    kept!.hash,
  ) as [{ n: number }];
  expect(n).toBe(ROWS + 1);

  const watched = await whileWatching(`${server.urls.api}/health`, () =>
    deployFiles(server.urls.api, p, { "/a.js": "x", "/b.js": "y" }),
  );
  console.log(
    `deploy beside ${ROWS} rows naming one hash: longest stall ${watched.longestStallMs.toFixed(0)} ms, ` +
      `longest /health wait ${watched.longestWaitMs.toFixed(0)} ms (${watched.answers} answers)`,
  );
  // The file the project had is not asked for again; the new one is.
  expect(watched.result.prepared.buckets.flat()).toHaveLength(1);
  const page = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/b.js");
  expect(page.body.toString()).toBe("y");
  // The old queries held it 438 ms here at a load of 7 (243 ms with only the per-hash one old).
  expect(watched.longestStallMs).toBeLessThan(100);
}, 180_000);
