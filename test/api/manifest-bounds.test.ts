import { afterEach, expect, it } from "vitest";
import { createTestProject, deployFiles, identity, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { describePostgres, testPostgres, TEST_DATABASE_URL } from "../support/postgres.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

// Issue 31, H2: manifest paths had no length limit. A path of 30 MiB was accepted (each revision
// added 172 MiB to the database); on PostgreSQL one over 2.7 KB was a 502 with a stack trace.

const HASH = "0123456789abcdef0123456789abcdef";
const MIB = 1024 * 1024;

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A path of exactly `bytes` bytes of UTF-8: "é" is two, the rest one. */
const pathOf = (bytes: number) => `/${"é".repeat(100)}/${"a".repeat(bytes - 202)}`;

function prepare(apiUrl: string, p: TestProject, manifest: Record<string, unknown>) {
  return api(apiUrl, "POST", `/projects/${p.slug}/prepare`, {
    token: p.token,
    raw: JSON.stringify({ ...identity(p), manifest }),
    headers: { "content-type": "application/json" },
  });
}

function scenario(options: { postgres: boolean }) {
  return async () => {
    const server = await startTestServer({
      maxManifestBytes: 4096,
      ...(options.postgres ? { databaseUrl: TEST_DATABASE_URL, databaseSchema: testPostgres().schema } : {}),
    });
    closers.push(() => server.stop());
    const p = await createTestProject(server.urls.api, "manifest-bounds");
    // The longest path is served, end to end.
    const longest = pathOf(1024);
    expect(Buffer.byteLength(longest)).toBe(1024);
    await deployFiles(server.urls.api, p, { [longest]: "<p>long</p>" });
    const served = await edgeGet(server.urls.edge, `${p.slug}.localhost`, encodeURI(longest));
    expect(served.status).toBe(200);
    expect(served.body.toString()).toBe("<p>long</p>");

    const before = options.postgres ? undefined : snapshotStore(server.dataDir);
    const refused = async (manifest: Record<string, unknown>, message: string) => {
      const answer = await prepare(server.urls.api, p, manifest);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("INVALID_MANIFEST");
      expect(answer.body.error.message).toContain(message);
    };
    const tooLong = "has a path of more than 1024 bytes of UTF-8; the limit is 1024 bytes";
    await refused({ [`/${p.slug}${pathOf(1025)}`]: { hash: HASH, size: 1 } }, tooLong);
    // Over PostgreSQL's limit for an index entry (a 502 there before).
    await refused({ [`/${p.slug}${pathOf(3000)}`]: { hash: HASH, size: 1 } }, tooLong);
    // The path of 30 MiB, in a body under MAX_BODY_BYTES.
    await refused({ [`/${p.slug}/${"a".repeat(30 * MIB)}`]: { hash: HASH, size: 1 } }, tooLong);
    // Five paths of 1,000 bytes: more than MAX_MANIFEST_BYTES (4,096 here) together.
    const five = Object.fromEntries(
      [1, 2, 3, 4, 5].map((n) => [`/${p.slug}/${n}${"a".repeat(998)}`, { hash: HASH, size: 1 }]),
    );
    await refused(five, "the limit is 4096 (MAX_MANIFEST_BYTES)");
    if (before) expect(snapshotStore(server.dataDir)).toEqual(before);
  };
}

const NAME =
  "prepare: a path of 1,024 bytes is deployed and served; one of 1,025, 3,000 or 30 MiB bytes, or paths over MAX_MANIFEST_BYTES together, is 400 INVALID_MANIFEST naming the limit, nothing changed";

it(`${NAME} (SQLite)`, scenario({ postgres: false }), 120_000);

await describePostgres("manifest bounds on PostgreSQL", () => {
  it(`${NAME} (PostgreSQL)`, scenario({ postgres: true }), 120_000);
});
