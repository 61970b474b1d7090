import { afterEach, expect, it } from "vitest";
import { type PgCounter, startPgCounter } from "../../bench/lib/pg-counter.js";
import { hashAsset } from "../../src/core/asset-hash.js";
import { createTestProject, deployFiles, identity, manifestOf } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { describePostgres, testPostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";

// Issue 32: a bucket's parts are looked up in runs of the session's hashes, not one statement a
// part (a 10,000-file first deploy cost PostgreSQL 10,259 statements, 10,053 of them the upload's).

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

type Server = Awaited<ReturnType<typeof startTestServer>>;

/**
 * Prepares `files` for a new project; returns its one bucket, ready to send, and what the prepare
 * cost PostgreSQL when `counter` counts.
 */
async function prepared(server: Server, label: string, files: Record<string, string>, counter?: PgCounter) {
  const p = await createTestProject(server.urls.api, label);
  const { manifest, byHash } = await manifestOf(p.slug, files);
  counter?.reset();
  const prepare = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
    token: p.token,
    body: { ...identity(p), manifest },
  });
  expect(prepare.status).toBe(200);
  const statements = counter?.traffic().statements ?? 0;
  const buckets = prepare.body.buckets as string[][];
  expect(buckets).toHaveLength(1);
  const parts = buckets[0]!.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
  const send = (sent: typeof parts) => uploadBucket(prepare.body.urls.upload, prepare.body.uploadJwt, sent);
  return { p, parts, send, deployId: prepare.body.deployId as string, statements };
}

function numbered(count: number, label: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`/f/${i}.txt`] = `${label} file ${i}`;
  return files;
}

await describePostgres("bucket statements on PostgreSQL", () => {
  it("upload: a bucket of 2,000 parts costs PostgreSQL about the statements of one of 200, not one more a part", async () => {
    const counter = await startPgCounter(TEST_DATABASE_URL);
    closers.push(() => counter.close());
    const server = await startTestServer({
      databaseUrl: counter.url,
      databaseSchema: testPostgres().schema,
      prepareLimitPerAddress: 0,
      prepareLimitPerProject: 0,
    });
    closers.push(() => server.stop());
    const statements: number[] = [];
    for (const count of [200, 2_000]) {
      const { parts, send } = await prepared(server, `statements-${count}`, numbered(count, `n${count}`));
      counter.reset();
      expect((await send(parts)).status).toBe(201);
      statements.push(counter.traffic().statements);
    }
    console.log(`statements of one bucket: 200 parts ${statements[0]}, 2,000 parts ${statements[1]}`);
    const [small, large] = statements as [number, number];
    expect(large - small).toBeLessThanOrEqual(10);
    expect(large).toBeLessThan(50);
  }, 60_000);

  it("prepare: a session of 10,000 paths costs PostgreSQL a few statements per 5,000 paths, not per 500", async () => {
    const counter = await startPgCounter(TEST_DATABASE_URL);
    closers.push(() => counter.close());
    const server = await startTestServer({
      databaseUrl: counter.url,
      databaseSchema: testPostgres().schema,
      bucketMaxFiles: 10_000,
    });
    closers.push(() => server.stop());
    const { statements } = await prepared(server, "prepare-10k", numbered(10_000, "p"), counter);
    console.log(`statements of a prepare of 10,000 paths: ${statements}`);
    // The old code wrote 500 paths a transaction of 7 statements: 163 in all.
    expect(statements).toBeLessThan(50);
  }, 60_000);
});

/** Parts held already (another project's), refused (a hash not named, a part twice), sent again: as before. */
function behaviour(start: () => Promise<Server>) {
  return async () => {
    const server = await start();
    closers.push(() => server.stop());
    const shared = { "/a.txt": "shared a", "/b.txt": "shared b" };
    await deployFiles(server.urls.api, await createTestProject(server.urls.api, "first"), shared);
    const files = { ...shared, ...numbered(5, "own") };
    const { p, parts, send, deployId } = await prepared(server, "second", files);
    // The other project's content is asked for all the same (contract §3): each project proves it.
    expect(parts).toHaveLength(7);

    const stranger = Buffer.from("named by no manifest");
    const undeclared = { hash: await hashAsset(stranger, "/x.txt"), bytes: stranger };
    const refused = await send([...parts, undeclared]);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].code).toBe(10005);
    const twice = await send([parts[0]!, parts[1]!, parts[0]!]);
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].code).toBe(10012);

    expect((await send(parts.slice(0, 3))).status).toBe(202);
    // Again, whole and backwards: what the session has, then what it lacks.
    const done = await send([...parts].reverse());
    expect(done.status).toBe(201);
    const deployed = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
      token: p.token,
      body: { ...identity(p), deployId, completionJwt: done.body.result.jwt },
    });
    expect(deployed.status).toBe(200);
    for (const [path, text] of Object.entries(files)) {
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, path)).body.toString()).toBe(text);
    }
  };
}

const NAME =
  "upload: parts another project holds are taken, a hash not named refused (10005), a part twice refused (10012), a bucket sent again in any order completes the session, and the site serves every file";

it(
  `${NAME} (SQLite)`,
  behaviour(() => startTestServer()),
  60_000,
);

await describePostgres("bucket behaviour on PostgreSQL", () => {
  it(
    `${NAME} (PostgreSQL)`,
    behaviour(() =>
      startTestServer({ databaseUrl: TEST_DATABASE_URL, databaseSchema: testPostgres().schema }),
    ),
    60_000,
  );
});
