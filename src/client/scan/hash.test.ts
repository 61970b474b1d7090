import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../core/asset-hash.js";
import { base64Chunks, base64Length } from "./file-stream.js";
import { FileHasher, SMALL_FILE_BYTES } from "./hash-file.js";
import { HashCache } from "./hash-cache.js";
import { hashBatches } from "./hash-pool.js";
import { hashBatch } from "./hash-batch.js";
import { BATCH_BYTES, BATCH_FILES, batchJobs, hashSite } from "./hash.js";
import { walkSite } from "./walk.js";

let dir: string;
/** More files than two batches hold, with a few extensions. */
const MANY = 2 * BATCH_FILES + 5;
const exts = ["html", "css", "js", "txt"];
const sizes = [0, 1, 2, 3, 4, 65_535, 196_608, 196_609, 1_000_003, SMALL_FILE_BYTES, SMALL_FILE_BYTES + 1];
const bytesOf = (size: number) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + (i >> 8)) & 0xff));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hash-"));
  for (const size of sizes) await writeFile(join(dir, `f${size}.bin`), bytesOf(size));
  await writeFile(join(dir, "same-a.txt"), "same");
  await writeFile(join(dir, "same-b.txt"), "same");
  await writeFile(join(dir, "same-c.css"), "same");
  await mkdir(join(dir, "many"));
  for (let i = 0; i < MANY; i++)
    await writeFile(join(dir, "many", `m${i}.${exts[i % exts.length]}`), `m${i}`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("hashing", () => {
  it("base64Chunks: any chunking joins to the base64 of the whole", async () => {
    const whole = bytesOf(1000);
    for (const step of [1, 2, 5, 7, 64, 999]) {
      async function* pieces() {
        for (let i = 0; i < whole.length; i += step) yield whole.subarray(i, i + step);
      }
      let joined = "";
      for await (const text of base64Chunks(pieces())) joined += text;
      expect(joined).toBe(whole.toString("base64"));
    }
    expect(base64Length(1000)).toBe(whole.toString("base64").length);
  });

  it("FileHasher: streaming hash equals hashAsset of the whole buffer, across chunk borders", async () => {
    const hasher = await FileHasher.create();
    for (const size of sizes) {
      const path = `f${size}.bin`;
      const expected = await hashAsset(bytesOf(size), `/site/${path}`);
      expect(await hasher.hash({ absPath: join(dir, path), path, size })).toBe(expected);
    }
  });

  it("FileHasher: a file whose size changed since the walk is named in the error", async () => {
    const hasher = await FileHasher.create();
    await expect(hasher.hash({ absPath: join(dir, "f4.bin"), path: "f4.bin", size: 5 })).rejects.toThrow(
      /f4.bin changed while deploying/,
    );
    await expect(hasher.hash({ absPath: join(dir, "f4.bin"), path: "f4.bin", size: 3 })).rejects.toThrow(
      /f4.bin changed while deploying/,
    );
    const big = `f${SMALL_FILE_BYTES + 1}.bin`;
    await expect(
      hasher.hash({ absPath: join(dir, big), path: big, size: SMALL_FILE_BYTES + 2 }),
    ).rejects.toThrow(/changed while deploying/);
    await expect(hasher.hash({ absPath: join(dir, "gone"), path: "gone", size: 1 })).rejects.toMatchObject({
      code: "READ_FAILED",
    });
  });

  it("FileHasher: one reset hasher over files of other sizes and extensions gives hashAsset's hashes", async () => {
    const hasher = await FileHasher.create();
    const order = [...sizes, ...sizes.slice().reverse()];
    for (const [i, size] of order.entries()) {
      const path = `f${size}.bin`;
      const label = `copy.${exts[i % exts.length]}`;
      const expected = await hashAsset(bytesOf(size), label);
      expect(await hasher.hash({ absPath: join(dir, path), path: label, size })).toBe(expected);
    }
    const files = (await walkSite(dir)).filter((file) => file.path.startsWith("many/"));
    for (const file of files)
      expect(await hasher.hash(file)).toBe(
        await hashAsset(Buffer.from(file.path.slice(5).split(".")[0]!), file.path),
      );
  });

  it("batchJobs: at most BATCH_FILES files and BATCH_BYTES bytes a batch, a large file alone, in order", () => {
    const file = (i: number, size: number) => ({
      path: `p${i}`,
      absPath: `/a/p${i}`,
      size,
      mtimeMs: 0,
      ino: i,
    });
    const small = Array.from({ length: MANY }, (_, i) => file(i, 10));
    const batches = batchJobs(
      small,
      small.map((_, i) => i),
    );
    expect(batches.map((batch) => batch.jobs.length)).toEqual([BATCH_FILES, BATCH_FILES, 5]);
    expect(batches.flatMap((batch) => batch.jobs.map((job) => job.id))).toEqual(small.map((_, i) => i));
    const mixed = [
      file(0, 10),
      file(1, BATCH_BYTES + 1),
      file(2, BATCH_BYTES / 2),
      file(3, BATCH_BYTES / 2),
      file(4, 1),
    ];
    expect(batchJobs(mixed, [0, 1, 2, 3, 4]).map((batch) => batch.jobs.map((job) => job.id))).toEqual([
      [0],
      [1],
      [2, 3],
      [4],
    ]);
  });

  it("hashBatch: stops at the first failure, with the hashes done before it", async () => {
    const hasher = await FileHasher.create();
    const job = (id: number, path: string, size: number) => ({ id, absPath: join(dir, path), path, size });
    const reply = await hashBatch(hasher, {
      jobs: [job(0, "f3.bin", 3), job(1, "missing.bin", 3), job(2, "f4.bin", 4)],
    });
    expect(reply.done).toEqual([[0, await hashAsset(bytesOf(3), "f3.bin")]]);
    expect(reply.error).toMatchObject({
      code: "READ_FAILED",
      message: expect.stringContaining("missing.bin"),
    });
  });

  it("hashSite: same contents and extension give the same hash; the extension counts", async () => {
    const files = (await walkSite(dir)).filter((file) => file.path.startsWith("same-"));
    const hashes = await hashSite(files, { cache: HashCache.empty(), threads: 0 });
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[2]).not.toBe(hashes[0]);
    expect(hashes[0]).toBe(await hashAsset(Buffer.from("same"), "a.txt"));
  });

  const workerUrl = new URL("../../../dist/client/scan/hash-worker.js", import.meta.url);
  it.skipIf(!existsSync(workerUrl))(
    "hashSite: worker threads give the same hashes as the main thread",
    async () => {
      const files = await walkSite(dir);
      const onMain = await hashSite(files, { cache: HashCache.empty(), threads: 0 });
      const inWorkers = await hashSite(files, {
        cache: HashCache.empty(),
        threads: 2,
        threadMinFiles: 0,
        workerUrl,
      });
      expect(inWorkers).toEqual(onMain);
      expect(inWorkers.every((hash) => /^[0-9a-f]{32}$/.test(hash))).toBe(true);
    },
  );

  it.skipIf(!existsSync(workerUrl))(
    "hashSite: across batch boundaries, every file is hashed and reported once",
    async () => {
      const files = await walkSite(dir);
      expect(files.length).toBeGreaterThan(2 * BATCH_FILES);
      const seen = new Map<string, number>();
      const inWorkers = await hashSite(files, {
        cache: HashCache.empty(),
        threads: 2,
        threadMinFiles: 0,
        workerUrl,
        onFile: (file, cached) => {
          expect(cached).toBe(false);
          seen.set(file.path, (seen.get(file.path) ?? 0) + 1);
        },
      });
      expect(seen.size).toBe(files.length);
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
      for (const [i, file] of files.entries()) {
        if (file.path.startsWith("many/")) {
          expect(inWorkers[i]).toBe(
            await hashAsset(Buffer.from(file.path.slice(5).split(".")[0]!), file.path),
          );
        }
      }
    },
  );

  it.skipIf(!existsSync(workerUrl))(
    "hashBatches: threads alone hash every batch as the main thread does",
    async () => {
      const files = await walkSite(dir);
      const got = new Map<number, string>();
      const batches = batchJobs(
        files,
        files.map((_, i) => i),
      );
      await hashBatches(batches, { threads: 2, workerUrl, done: (id, hash) => got.set(id, hash) });
      expect(got.size).toBe(files.length);
      const onMain = await hashSite(files, { cache: HashCache.empty(), threads: 0 });
      expect(files.map((_, i) => got.get(i))).toEqual(onMain);
    },
  );

  it.skipIf(!existsSync(workerUrl))("hashBatches: a file that changed fails the run, naming it", async () => {
    const files = (await walkSite(dir)).map((file) =>
      file.path === "many/m70.js" ? { ...file, size: file.size + 1 } : file,
    );
    const batches = batchJobs(
      files,
      files.map((_, i) => i),
    );
    const run = (helper?: FileHasher) =>
      hashBatches(batches, { threads: 2, workerUrl, done: () => {}, helper });
    for (const helper of [undefined, await FileHasher.create()]) {
      await expect(run(helper)).rejects.toMatchObject({
        code: "FILE_CHANGED",
        message: expect.stringContaining("many/m70.js"),
      });
    }
  });
});
