import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";
import { storedBlobs, completeDeploy, prepareFiles } from "../support/upload-flow.js";

// Issue 14, item 6: "already held" judged across projects told one project what another uploaded,
// and let anyone who knew a hash publish content without its bytes.
describe("deduplication is per project", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  const prepare = (p: TestProject, manifest: Record<string, { hash: string; size: number }>) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });

  it("POST prepare: asks for every hash this project does not reference, whatever other projects hold", async () => {
    const victim = await createTestProject(server.urls.api, "oracle-victim");
    const attacker = await createTestProject(server.urls.api, "oracle-attacker");
    // The victim uploads a secret and never deploys it.
    const secret = `token=${randomBytes(4).toString("hex")}`;
    const uploaded = await prepareFiles(server.urls.api, victim, { "/secret.txt": secret });
    const secretHash = uploaded.hashOf("/secret.txt");
    const sent = await uploadBucket(uploaded.prepared.urls.upload, uploaded.prepared.uploadJwt, [
      { hash: secretHash, bytes: Buffer.from(secret) },
    ]);
    expect(sent.status).toBe(201);

    // The attacker guesses 1,000 candidates, the secret among them.
    const guesses: Record<string, string> = {};
    for (let i = 0; i < 999; i++) guesses[`/guess-${i}.txt`] = `token=${i.toString(16).padStart(8, "0")}`;
    guesses["/guess-secret.txt"] = secret;
    const { manifest } = await manifestOf(attacker.slug, guesses);
    const res = await prepare(attacker, manifest);
    expect(res.status).toBe(200);
    const asked = new Set((res.body.buckets as string[][]).flat());
    expect(asked.size).toBe(1000);
    expect(asked.has(secretHash)).toBe(true);
  });

  it("POST deploy: a hash another project holds is not published without its bytes, even once its owner deleted it", async () => {
    const owner = await createTestProject(server.urls.api, "deleted-owner");
    const thief = await createTestProject(server.urls.api, "republisher");
    const content = "<p>the owner's page, deleted since</p>";
    await deployFiles(server.urls.api, owner, { "/index.html": content });
    // The thief names the content (its session keeps the blob alive), then the owner deletes.
    const stolen = await prepareFiles(server.urls.api, thief, { "/index.html": content });
    const deleted = await api(server.urls.api, "DELETE", `/projects/${owner.slug}`, {
      token: owner.token,
      body: identity(owner),
    });
    expect(deleted.status).toBe(200);

    const before = snapshotStore(server.dataDir);
    const res = await completeDeploy(
      server.urls.api,
      thief,
      stolen.prepared.deployId,
      stolen.prepared.uploadJwt,
    );
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("INVALID_COMPLETION");
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect((await edgeGet(server.urls.edge, `${thief.slug}.localhost`, "/")).status).toBe(404);
    expect(stolen.prepared.buckets).toEqual([[stolen.hashOf("/index.html")]]);
  });

  it("upload: bytes another project holds are verified for this project, then its deploy completes", async () => {
    const first = await createTestProject(server.urls.api, "shared-first");
    const second = await createTestProject(server.urls.api, "shared-second");
    const files = { "/index.html": "<p>the same bytes in two projects</p>" };
    await deployFiles(server.urls.api, first, files);
    const prepared = await prepareFiles(server.urls.api, second, files);
    const hash = prepared.hashOf("/index.html");
    expect(prepared.prepared.buckets).toEqual([[hash]]);
    // Wrong bytes under the hash are refused as for any upload.
    const wrong = await uploadBucket(prepared.prepared.urls.upload, prepared.prepared.uploadJwt, [
      { hash, bytes: Buffer.from("<p>something else</p>") },
    ]);
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].code).toBe(10004);
    const stored = storedBlobs(server.dataDir);
    const right = await uploadBucket(prepared.prepared.urls.upload, prepared.prepared.uploadJwt, [
      { hash, bytes: prepared.byHash.get(hash)! },
    ]);
    expect(right.status).toBe(201);
    // Verified, and not stored a second time.
    expect(storedBlobs(server.dataDir)).toEqual(stored);
    expect(
      (await completeDeploy(server.urls.api, second, prepared.prepared.deployId, right.body.result.jwt))
        .status,
    ).toBe(200);
    expect((await edgeGet(server.urls.edge, `${second.slug}.localhost`, "/")).body.toString()).toBe(
      files["/index.html"],
    );
  });

  it("POST prepare: content this project references (its kept revisions and open sessions) is not asked for again", async () => {
    const p = await createTestProject(server.urls.api, "own-content");
    await deployFiles(server.urls.api, p, { "/index.html": "<p>published</p>" });
    // Uploaded in an open session, not deployed.
    const open = await prepareFiles(server.urls.api, p, { "/draft.html": "<p>draft</p>" });
    const draft = open.hashOf("/draft.html");
    expect(
      (
        await uploadBucket(open.prepared.urls.upload, open.prepared.uploadJwt, [
          { hash: draft, bytes: open.byHash.get(draft)! },
        ])
      ).status,
    ).toBe(201);

    const again = await prepareFiles(server.urls.api, p, {
      "/index.html": "<p>published</p>",
      "/draft.html": "<p>draft</p>",
      "/new.html": "<p>new</p>",
    });
    expect(again.prepared.buckets).toEqual([[again.hashOf("/new.html")]]);
    // Named in an open session but never uploaded: still asked for.
    const named = await prepareFiles(server.urls.api, p, { "/new.html": "<p>new</p>" });
    expect(named.prepared.buckets).toEqual([[named.hashOf("/new.html")]]);
  });
});
