import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { UploadTokens } from "../../src/platform/selfhost/sessions/upload-tokens.js";
import { UploadErrorCode } from "../../src/upload/upload-errors.js";
import { THREAD_MIN_PART_BYTES } from "../../src/upload/part-decoder.js";
import { PartHashPool } from "../../src/upload/part-hash-pool.js";
import { UploadService } from "../../src/upload/upload-service.js";
import { MemoryUploadStorage } from "../support/memory-upload-storage.js";
import { createTestProject } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { multipartBody, uploadBucket, type UploadPart } from "../support/multipart.js";
import { startTestServer, tempDir } from "../support/server.js";
import { completeDeploy, prepareFiles } from "../support/upload-flow.js";

// The upload service with hashing threads (UPLOAD_HASH_THREADS > 0): the parts are decoded and
// hashed on them, and what is kept or refused is what the main thread would keep or refuse.
const ACCOUNT = "a".repeat(32);
const NOW = 1_800_000_000_000;
const PAGE = Buffer.from("<p>page</p>");
// Large enough to reach the thread in many chunks (the body is sent 16 KiB at a time).
const IMAGE = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) & 0xff));

let storage: MemoryUploadStorage;
let tokens: UploadTokens;
let pool: PartHashPool;
let hashes: { page: string; image: string };

/** The service on `storage` with `pool` (or, given null, hashing on this thread). */
function service(hashPool: PartHashPool | null = pool): UploadService {
  return new UploadService({
    accountId: ACCOUNT,
    storage,
    tokens,
    maxAssetBytes: 512 * 1024,
    maxFiles: 10,
    maxRequestBytes: 2 * 1024 * 1024,
    now: () => NOW,
    hashPool: hashPool ?? undefined,
  });
}

/** Sends one bucket of `parts` for session s1, its body in 16 KiB chunks. */
async function send(parts: UploadPart[], through = service()) {
  const token = await tokens.sign(["upload"], "s1", ACCOUNT, new Date(NOW + 60_000));
  const { body, contentType } = multipartBody(parts);
  const chunks = (async function* () {
    for (let at = 0; at < body.length; at += 16 * 1024) yield body.subarray(at, at + 16 * 1024);
  })();
  return through.receiveBucket({ accountId: ACCOUNT, token, contentType, body: chunks });
}

beforeEach(async () => {
  storage = new MemoryUploadStorage();
  tokens = new UploadTokens("secret", () => NOW);
  pool = new PartHashPool(2);
  hashes = { page: await hashAsset(PAGE, "/index.html"), image: await hashAsset(IMAGE, "/image.png") };
  storage.openSession("s1", NOW + 60_000, [
    { path: "/index.html", hash: hashes.page, size: PAGE.length },
    { path: "/image.png", hash: hashes.image, size: IMAGE.length },
  ]);
});

afterEach(() => pool.close());

describe("upload with hashing threads", () => {
  it("receiveBucket: a part of THREAD_MIN_PART_BYTES or more is hashed on a thread, a smaller one on the main thread, both kept under their hash", async () => {
    const done = await send([
      { hash: hashes.page, bytes: PAGE },
      { hash: hashes.image, bytes: IMAGE },
    ]);
    expect(done.status).toBe(201);
    expect(PAGE.length).toBeLessThan(THREAD_MIN_PART_BYTES);
    expect(IMAGE.length).toBeGreaterThanOrEqual(THREAD_MIN_PART_BYTES);
    expect(pool.partsHashed).toBe(1);
    expect(storage.blobs.get(hashes.page)).toEqual(PAGE);
    expect(storage.blobs.get(hashes.image)?.equals(IMAGE)).toBe(true);
  });

  it("receiveBucket: with UPLOAD_HASH_THREADS=0 (no pool) no thread hashes and the same bytes are kept", async () => {
    expect((await send([{ hash: hashes.image, bytes: IMAGE }], service(null))).status).toBe(202);
    expect(pool.partsHashed).toBe(0);
    expect(pool.running).toBe(0);
    expect(storage.blobs.get(hashes.image)?.equals(IMAGE)).toBe(true);
  });

  it("receiveBucket: a part whose bytes do not match its hash refuses the bucket 400 (10004), its pack discarded and nothing recorded", async () => {
    const other = Buffer.from(IMAGE);
    other[200_000] = other[200_000]! ^ 1;
    await expect(
      send([
        { hash: hashes.page, bytes: PAGE },
        { hash: hashes.image, bytes: other },
      ]),
    ).rejects.toMatchObject({ status: 400, code: UploadErrorCode.hashMismatch });
    expect(storage.packs.map((pack) => pack.discarded)).toEqual([true]);
    expect(storage.blobs.size).toBe(0);
    expect(await storage.missingCount("s1")).toBe(2);
  });

  it("receiveBucket: content larger than maxAssetBytes is refused 400 (10003) with threads too, nothing recorded", async () => {
    const big = Buffer.alloc(600 * 1024, 1);
    storage.openSession("s1", NOW + 60_000, [
      { path: "/big.bin", hash: await hashAsset(big, "/big.bin"), size: big.length },
    ]);
    const [bigHash] = [...storage.sessions.get("s1")!.assets.values()].map((entry) => entry.hash);
    await expect(send([{ hash: bigHash!, bytes: big }])).rejects.toMatchObject({
      status: 400,
      code: UploadErrorCode.badRequest,
      message: expect.stringMatching(/exceeds 524288 bytes/),
    });
    expect(storage.packs.every((pack) => pack.discarded)).toBe(true);
    expect(storage.blobs.size).toBe(0);
    expect(pool.partsHashed).toBe(0);
  });

  it("receiveBucket: a large part that is not base64 is refused 400 (10003) with threads too, nothing recorded", async () => {
    const text = IMAGE.toString("base64");
    const broken = `${text.slice(0, 200_000)}*${text.slice(200_001)}`;
    const { body, contentType } = multipartBody([{ hash: hashes.image, bytes: Buffer.alloc(0) }]);
    const withText = Buffer.from(
      body.toString("latin1").replace("\r\n\r\n\r\n", `\r\n\r\n${broken}\r\n`),
      "latin1",
    );
    const token = await tokens.sign(["upload"], "s1", ACCOUNT, new Date(NOW + 60_000));
    await expect(
      service().receiveBucket({
        accountId: ACCOUNT,
        token,
        contentType,
        body: (async function* () {
          yield withText;
        })(),
      }),
    ).rejects.toMatchObject({
      status: 400,
      code: UploadErrorCode.badRequest,
      message: "content is not base64",
    });
    expect(storage.packs.every((pack) => pack.discarded)).toBe(true);
    expect(storage.blobs.size).toBe(0);
  });

  it("PartHashPool: never more threads than its size, however many buckets at once", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => send([{ hash: hashes.image, bytes: IMAGE }])),
    );
    expect(results.every((result) => result.status === 202)).toBe(true);
    expect(pool.running).toBeGreaterThanOrEqual(1);
    expect(pool.running).toBeLessThanOrEqual(2);
    expect(pool.partsHashed).toBe(6);
  });

  it("PartHashPool: once closed its threads are gone and a new part is refused", async () => {
    await send([{ hash: hashes.image, bytes: IMAGE }]);
    expect(pool.running).toBe(1);
    await pool.close();
    expect(pool.running).toBe(0);
    storage.openSession("s1", NOW + 60_000, [{ path: "/image.png", hash: hashes.image, size: IMAGE.length }]);
    storage.blobs.clear();
    await expect(send([{ hash: hashes.image, bytes: IMAGE }])).rejects.toThrow(/closed/);
    expect(storage.blobs.size).toBe(0);
  });
});

describe("a process with hashing threads", () => {
  it("PartHashPool: left open after a part, it does not keep the process from exiting", async () => {
    const pool = new URL("../../dist/upload/part-hash-pool.js", import.meta.url).href;
    const script = `
      const { PartHashPool } = await import(${JSON.stringify(pool)});
      const lane = new PartHashPool(2).lane();
      await lane.hash(Buffer.from("abc"));
      console.log(await lane.finish("txt"));`;
    const dir = tempDir("hash-pool-exit-");
    const file = join(dir.path, "open-pool.mjs");
    writeFileSync(file, script);
    const child = spawn(process.execPath, [file], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    const [code] = await once(child, "exit");
    clearTimeout(timer);
    dir.cleanup();
    expect(code).toBe(0);
    expect(output.trim()).toBe(await hashAsset(Buffer.from("abc"), "/x.txt"));
  });
});

describe("the server with UPLOAD_HASH_THREADS=2", () => {
  it("upload: a large file is verified on a thread and deploys byte-exact; one whose bytes do not match is refused 400 (10004) and stays missing", async () => {
    const server = await startTestServer({ uploadHashThreads: 2 });
    try {
      const p = await createTestProject(server.urls.api, "hash-threads");
      const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 31) & 0xff));
      const first = await prepareFiles(server.urls.api, p, { "/big.bin": bytes });
      const hash = first.hashOf("/big.bin");
      const other = Buffer.from(bytes);
      other[150_000] = other[150_000]! ^ 1;
      const refused = await uploadBucket(first.prepared.urls.upload, first.prepared.uploadJwt, [
        { hash, bytes: other },
      ]);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].code).toBe(UploadErrorCode.hashMismatch);
      const again = await prepareFiles(server.urls.api, p, { "/big.bin": bytes });
      expect(again.prepared.buckets.flat()).toEqual([hash]);
      const taken = await uploadBucket(again.prepared.urls.upload, again.prepared.uploadJwt, [
        { hash, bytes },
      ]);
      expect(taken.status).toBe(201);
      const deployed = await completeDeploy(
        server.urls.api,
        p,
        again.prepared.deployId,
        taken.body.result.jwt,
      );
      expect(deployed.status).toBe(200);
      const served = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/big.bin");
      expect(served.status).toBe(200);
      expect(served.body.equals(bytes)).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
