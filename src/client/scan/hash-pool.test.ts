import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BroadcastChannel } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import type { HashBatch } from "./hash-batch.js";
import { FileHasher } from "./hash-file.js";
import { hashBatches } from "./hash-pool.js";
import { HASH_WORKER_ROLE } from "./worker-script.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hash-pool-"));
  await writeFile(join(dir, "a.txt"), "abc");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A hashing thread of `body` (run with `parentPort` in scope): stands for hash-worker.js. */
async function worker(name: string, body: string): Promise<URL> {
  const path = join(dir, `${name}.mjs`);
  await writeFile(path, `import { parentPort } from "node:worker_threads";\n${body}\n`);
  return pathToFileURL(path);
}

/** `count` batches of one job each, ids 0 up. */
const batches = (count: number): HashBatch[] =>
  Array.from({ length: count }, (_, id) => ({
    jobs: [{ id, absPath: join(dir, "a.txt"), path: `f${id}.txt`, size: 3 }],
  }));

async function failure(run: Promise<void>): Promise<Error> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe("hashBatches", () => {
  it("hashBatches: every batch is answered once, across threads started with the hashing role, and done hears each file", async () => {
    // Answers with the role it was started with, so the test sees it.
    const workerUrl = await worker(
      "echo",
      `import { workerData } from "node:worker_threads";
      parentPort.on("message", (batch) =>
        parentPort.postMessage({ done: batch.jobs.map((job) => [job.id, workerData.role + job.id]) }),
      );`,
    );
    const done = new Map<number, string>();
    await hashBatches(batches(7), { threads: 2, workerUrl, done: (id, hash) => done.set(id, hash) });
    expect([...done.entries()].sort(([a], [b]) => a - b)).toEqual(
      Array.from({ length: 7 }, (_, id) => [id, `${HASH_WORKER_ROLE}${id}`]),
    );
  });

  it("hashBatches: a thread's error answer is thrown as its CliError, after the files it did", async () => {
    const workerUrl = await worker(
      "fails",
      `parentPort.on("message", (batch) => parentPort.postMessage({
        done: [[batch.jobs[0].id, "done-first"]],
        error: { code: "FILE_CHANGED", message: "f0.txt changed", hint: "Run deploy again." },
      }));`,
    );
    const done: Array<[number, string]> = [];
    const error = await failure(
      hashBatches(batches(1), { threads: 1, workerUrl, done: (id, hash) => done.push([id, hash]) }),
    );
    expect(error).toBeInstanceOf(CliError);
    expect([(error as CliError).code, error.message, (error as CliError).hint]).toEqual([
      "FILE_CHANGED",
      "f0.txt changed",
      "Run deploy again.",
    ]);
    expect(done).toEqual([[0, "done-first"]]);
  });

  it("hashBatches: a thread that stops is an error naming its exit code", async () => {
    const workerUrl = await worker("exits", `parentPort.on("message", () => process.exit(3));`);
    const error = await failure(hashBatches(batches(2), { threads: 1, workerUrl, done: () => {} }));
    expect(error.message).toBe("a hashing thread stopped (exit code 3)");
  });

  it("hashBatches: a thread that throws fails the run with its error", async () => {
    const workerUrl = await worker("throws", `throw new Error("no WebAssembly here");`);
    const error = await failure(hashBatches(batches(2), { threads: 1, workerUrl, done: () => {} }));
    expect(error.message).toBe("no WebAssembly here");
  });

  it("hashBatches: with a helper, the main thread hashes the batches no thread has taken while none has answered", async () => {
    // The thread holds its batch until told to answer (over a channel): the helper hashes the rest meanwhile.
    const workerUrl = await worker(
      "held",
      `const channel = new BroadcastChannel("hash-pool-test");
      let held;
      channel.onmessage = () => {
        parentPort.postMessage({ done: held.jobs.map((job) => [job.id, "thread"]) });
        channel.close();
      };
      parentPort.on("message", (batch) => {
        held = batch;
        channel.postMessage("held");
      });`,
    );
    const channel = new BroadcastChannel("hash-pool-test");
    const held = new Promise((resolve) => (channel.onmessage = resolve));
    const done = new Map<number, string>();
    let helperDone = () => {};
    const threeDone = new Promise<void>((resolve) => (helperDone = resolve));
    const helper = await FileHasher.create();
    const run = hashBatches(batches(4), {
      threads: 1,
      workerUrl,
      done: (id, hash) => {
        done.set(id, hash);
        if (done.size === 3) helperDone();
      },
      helper,
    });
    await Promise.all([held, threeDone]);
    expect([...done.keys()]).toEqual([1, 2, 3]);
    expect(done.get(1)).toBe(await helper.hash({ absPath: join(dir, "a.txt"), path: "f1.txt", size: 3 }));
    channel.postMessage("answer");
    await run;
    channel.close();
    expect(done.get(0)).toBe("thread");
  });

  it("hashBatches: the helper's failure stops the run with its error", async () => {
    const workerUrl = await worker("quiet", `parentPort.on("message", () => {});`);
    const jobs = batches(3);
    jobs[1] = { jobs: [{ id: 1, absPath: join(dir, "missing.txt"), path: "missing.txt", size: 3 }] };
    const done: number[] = [];
    const error = await failure(
      hashBatches(jobs, {
        threads: 1,
        workerUrl,
        done: (id) => done.push(id),
        helper: await FileHasher.create(),
      }),
    );
    expect([(error as CliError).code, error.message]).toEqual([
      "READ_FAILED",
      expect.stringContaining("cannot read missing.txt"),
    ]);
    // Batch 0 is the thread's (never answered), batch 1 failed: batch 2 is handed to nobody.
    expect(done).toEqual([]);
  });
});
