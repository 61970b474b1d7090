import { randomBytes } from "node:crypto";
import fs, { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3Client } from "../../src/platform/selfhost/content/s3/s3-client.js";
import {
  MULTIPART_FROM_BYTES,
  PART_BYTES,
  uploadFile,
} from "../../src/platform/selfhost/content/s3/s3-upload.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { tempDir } from "../support/server.js";

type OpenArguments = Parameters<typeof fs.open>;

/**
 * Holds `fs.open` of one path at a barrier until `release()`, as a thread pool busy with other work
 * would: a read stream opens its file through it (createReadStream's default `fs`). `held` counts
 * the opens of that path; `answered` settles once the real open has called back.
 */
function holdOpen(path: string) {
  const open = fs.open;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  let held = 0;
  fs.open = ((...args: OpenArguments) => {
    const callback = args.at(-1) as (...results: unknown[]) => void;
    if (args[0] !== path) return (open as (...all: OpenArguments) => void)(...args);
    held++;
    void released.then(() =>
      (open as (...all: unknown[]) => void)(...args.slice(0, -1), (...results: unknown[]) => {
        callback(...results);
        answer();
      }),
    );
  }) as typeof fs.open;
  return { held: () => held, release, answered, restore: () => void (fs.open = open) };
}

describe("uploadFile", () => {
  let store: TestObjectStore;
  const dir = tempDir("deploy-s3-upload-");
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => {
    await store.close();
    dir.cleanup();
  });

  it("uploadFile: a file from MULTIPART_FROM_BYTES goes up in parts and reads back whole, across part boundaries", async () => {
    const settings = store.settings();
    const client = createS3Client(settings);
    try {
      const bytes = randomBytes(MULTIPART_FROM_BYTES + 12_345);
      const path = join(dir.path, "big.pack");
      writeFileSync(path, bytes);
      const target = { Bucket: settings.location.bucket, Key: `${settings.location.prefix}big.pack` };
      let requests = 0;
      await uploadFile(client, target, path, bytes.length, () => {
        requests++;
        return AbortSignal.timeout(10_000);
      });
      // Each request has its own deadline: create, three parts, complete.
      expect(requests).toBe(5);
      const start = PART_BYTES - 10;
      const reply = await client.send(
        new GetObjectCommand({ ...target, Range: `bytes=${start}-${start + 19}` }),
      );
      expect(reply.ContentRange).toBe(`bytes ${start}-${start + 19}/${bytes.length}`);
      expect(Buffer.from(await reply.Body!.transformToByteArray())).toEqual(
        bytes.subarray(start, start + 20),
      );
      const tail = await client.send(
        new GetObjectCommand({ ...target, Range: `bytes=${bytes.length - 5}-` }),
      );
      expect(Buffer.from(await tail.Body!.transformToByteArray())).toEqual(bytes.subarray(bytes.length - 5));
    } finally {
      client.destroy();
    }
  });

  it("uploadFile: a PutObject refused with the store down before its body is read, the file then removed, leaves no uncaught exception", async () => {
    const settings = store.settings();
    const client = createS3Client(settings);
    const uncaught: unknown[] = [];
    const record = (error: unknown) => void uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      const path = join(dir.path, "refused.pack");
      const bytes = randomBytes(1_000);
      writeFileSync(path, bytes);
      const target = { Bucket: settings.location.bucket, Key: `${settings.location.prefix}refused.pack` };
      const signal = () => AbortSignal.timeout(10_000);
      await store.stop();
      const hold = holdOpen(path);
      try {
        // The body's file cannot be opened, so not read, before the send has failed.
        await expect(uploadFile(client, target, path, bytes.length, signal)).rejects.toMatchObject({
          code: "ECONNREFUSED",
        });
        expect(hold.held()).toBe(1);
        // As the bucket's refusal does, then the stream opens its file: ENOENT.
        rmSync(path);
        hold.release();
        await hold.answered;
        // The stream reports the failure of its open on the next tick.
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        hold.restore();
        await store.start();
      }
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", record);
      client.destroy();
    }
  });
});
