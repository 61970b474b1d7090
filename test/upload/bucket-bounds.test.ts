import { afterEach, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { createTestProject, identity } from "../support/deploy-flow.js";
import { whileWatching } from "../support/event-loop-stall.js";
import { api } from "../support/http.js";
import { multipartBody } from "../support/multipart.js";
import { describePostgres, testPostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

// Issue 31, H1: one small upload froze the service for 10 minutes. A prepare of 100,000 paths
// naming one 1-byte file, then one bucket repeating that part 2,000 times: every part read every
// manifest row naming the hash (0.9 s each) before its repetition was noticed.

const PATHS = 100_000;
const REPEATS = 2_000;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function scenario(start: () => ReturnType<typeof startTestServer>) {
  return async () => {
    const server = await start();
    closers.push(() => server.stop());
    const p = await createTestProject(server.urls.api, "repeated-part");
    const bytes = Buffer.from("x");
    const hash = await hashAsset(bytes, "/0.txt");
    const manifest: Record<string, { hash: string; size: number }> = {};
    for (let i = 0; i < PATHS; i++) manifest[`/${p.slug}/${i}.txt`] = { hash, size: 1 };
    const health = `${server.urls.api}/health`;
    // Made before the watch: this process is the server's too.
    const raw = JSON.stringify({ ...identity(p), manifest });

    const prepare = await whileWatching(health, () =>
      api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        raw,
        headers: { "content-type": "application/json" },
      }),
    );
    expect(prepare.result.status).toBe(200);
    expect(prepare.result.body.buckets).toEqual([[hash]]);

    const { body, contentType } = multipartBody(Array.from({ length: REPEATS }, () => ({ hash, bytes })));
    const started = performance.now();
    const upload = await whileWatching(health, async () => {
      const response = await fetch(prepare.result.body.urls.upload, {
        method: "POST",
        headers: { authorization: `Bearer ${prepare.result.body.uploadJwt}`, "content-type": contentType },
        body,
        // The old code took about 0.9 s a part: 30 minutes.
        signal: AbortSignal.timeout(30_000),
      });
      return { status: response.status, body: (await response.json()) as any };
    });
    const tookMs = performance.now() - started;
    console.log(
      `repeated part (${body.length} bytes): answered in ${tookMs.toFixed(0)} ms; longest stall ` +
        `${upload.longestStallMs.toFixed(0)} ms, longest /health wait ${upload.longestWaitMs.toFixed(0)} ms; ` +
        `prepare of ${PATHS} paths: longest stall ${prepare.longestStallMs.toFixed(0)} ms, ` +
        `longest /health wait ${prepare.longestWaitMs.toFixed(0)} ms (${prepare.answers} answers)`,
    );
    expect(upload.result.status).toBe(400);
    expect(upload.result.body.errors).toEqual([
      {
        code: 10012,
        message: `part ${hash} appears more than once in this bucket; a bucket names each asset once`,
      },
    ]);
    // Bounds for a busy machine of two shared cores; the figures are in the log above.
    expect(upload.longestStallMs).toBeLessThan(500);
    expect(upload.longestWaitMs).toBeLessThan(1_000);

    // The part sent once is taken, at once: its lookup reads one row, not 100,000.
    const once = multipartBody([{ hash, bytes }]);
    const taken = await fetch(prepare.result.body.urls.upload, {
      method: "POST",
      headers: { authorization: `Bearer ${prepare.result.body.uploadJwt}`, "content-type": once.contentType },
      body: once.body,
    });
    expect(taken.status).toBe(201);
  };
}

const NAME = `upload: a bucket repeating one part ${REPEATS.toLocaleString("en")} times against a session of ${PATHS.toLocaleString("en")} paths naming its hash is refused 400 (10012) at once, the server answering meanwhile; the part sent once is taken`;

it(
  `${NAME} (SQLite)`,
  scenario(() => startTestServer({ prepareLimitPerAddress: 0, prepareLimitPerProject: 0 })),
  120_000,
);

await describePostgres("bucket bounds on PostgreSQL", () => {
  it(
    `${NAME} (PostgreSQL)`,
    scenario(() =>
      startTestServer({
        databaseUrl: TEST_DATABASE_URL,
        databaseSchema: testPostgres().schema,
        prepareLimitPerAddress: 0,
        prepareLimitPerProject: 0,
      }),
    ),
    120_000,
  );
});
