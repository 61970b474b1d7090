import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../../core/asset-hash.js";
import { base64Chunks, base64Length } from "./file-stream.js";
import { SMALL_FILE_BYTES } from "./file-stream.js";
import { FileHasher } from "./hash-file.js";
import { HashCache } from "./hash-cache.js";
import { hashBatches } from "./hash-pool.js";
import { hashBatch } from "./hash-batch.js";
import { BATCH_BYTES, BATCH_FILES, batchJobs, hashSite, THREAD_MIN_FILES } from "./hash.js";
import { walkSite } from "./walk.js";
import type { SiteFile } from "./walk-state.js";
import { useWorkerScript, workerScript } from "./worker-script.js";

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
    // A large file first starts no empty batch; nothing to hash is no batch.
    expect(batchJobs(mixed, [1, 0]).map((batch) => batch.jobs.map((job) => job.id))).toEqual([[1], [0]]);
    expect(batchJobs(mixed, [])).toEqual([]);
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

  it.skipIf(!existsSync("/proc/self/fd"))(
    "FileHasher: closes each file it reads, whole or failing",
    async () => {
      const hasher = await FileHasher.create();
      const open = () => readdirSync("/proc/self/fd").length;
      const before = open();
      for (let i = 0; i < 50; i++) {
        await hasher.hash({ absPath: join(dir, "f4.bin"), path: "f4.bin", size: 4 });
        await hasher.hash({ absPath: join(dir, "f4.bin"), path: "f4.bin", size: 3 }).catch(() => undefined);
      }
      expect(open() - before).toBeLessThan(10);
    },
  );

  it("hashBatch: a failure's code and hint are kept; an error without a code is HASH_FAILED", async () => {
    const hasher = await FileHasher.create();
    const changed = await hashBatch(hasher, {
      jobs: [{ id: 0, absPath: join(dir, "f4.bin"), path: "f4.bin", size: 5 }],
    });
    expect(changed).toEqual({
      done: [],
      error: {
        code: "FILE_CHANGED",
        message: "f4.bin changed while deploying (5 bytes expected)",
        hint: "Run deploy again once the build has finished.",
      },
    });
    const failing = {
      hash: () => Promise.reject(new Error("out of memory")),
    } as unknown as FileHasher;
    expect(await hashBatch(failing, { jobs: [{ id: 3, absPath: "/x", path: "x", size: 1 }] })).toEqual({
      done: [],
      error: { code: "HASH_FAILED", message: "out of memory", hint: undefined },
    });
    expect(await hashBatch(hasher, { jobs: [] })).toEqual({ done: [] });
  });

  it("FileHasher: a file that cannot be opened, or a folder that cannot be read, is READ_FAILED naming it", async () => {
    const hasher = await FileHasher.create();
    await expect(hasher.hash({ absPath: join(dir, "gone"), path: "site/gone", size: 1 })).rejects.toThrow(
      /^cannot read site\/gone: ENOENT/,
    );
    await expect(hasher.hash({ absPath: join(dir, "many"), path: "site/many", size: 1 })).rejects.toThrow(
      /^cannot read site\/many: EISDIR/,
    );
    await expect(
      hasher.hash({ absPath: join(dir, "many"), path: "site/many", size: 1 }),
    ).rejects.toMatchObject({
      code: "READ_FAILED",
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

/** A hashing thread that answers every job with FAKE_HASH without reading it: shows which files went to threads. */
const FAKE_HASH = "f".repeat(32);
async function fakeWorker(): Promise<URL> {
  const path = join(dir, "fake-worker.mjs");
  await writeFile(
    path,
    `import { parentPort } from "node:worker_threads";
parentPort.on("message", (batch) =>
  parentPort.postMessage({ done: batch.jobs.map((job) => [job.id, "${FAKE_HASH}"]) }),
);
`,
  );
  return pathToFileURL(path);
}

/** `count` site files of the same small file on disk ("m0"), each under a path of its own. */
const copies = (count: number, size = 2): SiteFile[] =>
  Array.from({ length: count }, (_, i) => ({
    path: `c${i}.txt`,
    absPath: join(dir, "many", "m0.html"),
    size,
    mtimeMs: 0,
    ino: i,
  }));

describe("hashSite's choice of threads", () => {
  it("hashSite: threads once the files to hash reach threadMinFiles, the main thread below it", async () => {
    const workerUrl = await fakeWorker();
    const files = copies(2);
    const real = await hashAsset(Buffer.from("m0"), "c0.txt");
    const run = (threadMinFiles: number) =>
      hashSite(files, { cache: HashCache.empty(), threads: 1, threadMinFiles, workerUrl });
    expect(await run(2)).toEqual([FAKE_HASH, FAKE_HASH]);
    expect((await run(3))[0]).toBe(real);
  });

  it("hashSite: 64 MiB to hash start threads whatever the count of files", async () => {
    const workerUrl = await fakeWorker();
    const options = { cache: HashCache.empty(), threads: 2, threadMinFiles: 10, workerUrl };
    const file = (size: number): SiteFile => ({
      path: "big.bin",
      absPath: join(dir, "absent"),
      size,
      mtimeMs: 0,
      ino: 1,
    });
    expect(await hashSite([file(64 * 1024 * 1024)], options)).toEqual([FAKE_HASH]);
    // One byte less: read on the main thread, where the absent file fails.
    await expect(hashSite([file(64 * 1024 * 1024 - 1)], options)).rejects.toMatchObject({
      code: "READ_FAILED",
    });
  });

  it("hashSite: no threads when none are asked for or the worker script is missing", async () => {
    const workerUrl = await fakeWorker();
    const real = await hashAsset(Buffer.from("m0"), "c0.txt");
    const noThreads = await hashSite(copies(2), {
      cache: HashCache.empty(),
      threads: 0,
      threadMinFiles: 0,
      workerUrl,
    });
    expect(noThreads[0]).toBe(real);
    const missing = new URL("./no-such-worker.mjs", workerUrl);
    const noScript = await hashSite(copies(2), {
      cache: HashCache.empty(),
      threads: 1,
      threadMinFiles: 0,
      workerUrl: missing,
    });
    expect(noScript[0]).toBe(real);
  });

  it("hashSite: THREAD_MIN_FILES files by default start threads, one fewer does not", async () => {
    const workerUrl = await fakeWorker();
    // The main thread hashes batches too until the thread first answers: some hashes are its own.
    const atMin = await hashSite(copies(THREAD_MIN_FILES), {
      cache: HashCache.empty(),
      threads: 1,
      workerUrl,
    });
    expect(atMin).toContain(FAKE_HASH);
    const below = await hashSite(copies(THREAD_MIN_FILES - 1), {
      cache: HashCache.empty(),
      threads: 1,
      workerUrl,
    });
    expect(below).not.toContain(FAKE_HASH);
  });

  it("hashSite: cached files do not count towards threads; hashes from threads are reported and cached", async () => {
    const workerUrl = await fakeWorker();
    const config = await mkdtemp(join(tmpdir(), "hash-config-"));
    try {
      const files = copies(3);
      const first = await HashCache.load(config, "p".repeat(64), 60_000);
      first.record(files[0]!, "c".repeat(32));
      await first.save();
      const seen: Array<[string, boolean]> = [];
      const options = {
        cache: await HashCache.load(config, "p".repeat(64), 60_000),
        threads: 1,
        threadMinFiles: 3,
        workerUrl,
        onFile: (file: SiteFile, cached: boolean) => seen.push([file.path, cached]),
      };
      // 3 files, 1 cached: 2 to hash, below 3, so the main thread.
      const hashes = await hashSite(files, options);
      expect(hashes[0]).toBe("c".repeat(32));
      expect(hashes[1]).toBe(await hashAsset(Buffer.from("m0"), "c1.txt"));
      expect(seen).toEqual([
        ["c0.txt", true],
        ["c1.txt", false],
        ["c2.txt", false],
      ]);
      // Without onFile, a cached file is no trouble.
      expect((await hashSite(files, { ...options, onFile: undefined }))[0]).toBe("c".repeat(32));
      seen.length = 0;
      const threaded = await hashSite(files, { ...options, cache: HashCache.empty() });
      expect(threaded).toEqual([FAKE_HASH, FAKE_HASH, FAKE_HASH]);
      expect(seen.map(([, cached]) => cached)).toEqual([false, false, false]);
      const recording = await HashCache.load(config, "q".repeat(64), 60_000);
      await hashSite(files.slice(0, 1), { cache: recording, threads: 1, threadMinFiles: 1, workerUrl });
      await recording.save();
      expect((await HashCache.load(config, "q".repeat(64))).lookup(files[0]!)).toBe(FAKE_HASH);
    } finally {
      await rm(config, { recursive: true, force: true });
    }
  });

  it("hashSite: without a worker URL, the script workerScript() names", async () => {
    const workerUrl = await fakeWorker();
    const before = workerScript();
    useWorkerScript(workerUrl);
    try {
      expect(await hashSite(copies(1), { cache: HashCache.empty(), threads: 1, threadMinFiles: 1 })).toEqual([
        FAKE_HASH,
      ]);
    } finally {
      useWorkerScript(before);
    }
    expect(workerScript()).toBe(before);
  });
});
