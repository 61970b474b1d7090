import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";
import { startServer } from "../../src/server/index.js";
import { TestClock } from "../support/clock.js";
import { capturingLogger, LEVEL } from "../support/log-lines.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { ON_LOOPBACK, tempDir } from "../support/server.js";

const HOUR_SECONDS = 3600;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An S3 client on the store of `settings`, closed after the test. */
function clientOf(settings: S3Settings): S3Client {
  const client = new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: true,
    credentials: settings.credentials,
  });
  cleanups.push(() => client.destroy());
  return client;
}

describe("starting on an object store", () => {
  let store: TestObjectStore;
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(() => store.close());

  /** The server on the store, with its own clock and a logger kept for reading. */
  async function start(settings: S3Settings, clock = new TestClock(), prepare = (_dir: string) => {}) {
    const dir = tempDir("deploy-s3-start-");
    cleanups.push(dir.cleanup);
    prepare(dir.path);
    const { logger, lines } = capturingLogger();
    const server = await startServer({
      ...ON_LOOPBACK,
      dataDir: dir.path,
      objectStore: settings,
      clock,
      logger,
    });
    cleanups.push(() => server.close());
    return { server, lines };
  }

  it("start: an unnamed pack object is kept while younger than the grace, removed and counted once older", async () => {
    const settings = store.settings();
    const client = clientOf(settings);
    const key = `${settings.location.prefix}packs/${"cd".repeat(12)}.pack`;
    await client.send(new PutObjectCommand({ Bucket: settings.location.bucket, Key: key, Body: "stray" }));
    // A loose file no row names either: the sweep's count says whether it took the pack too.
    const young = await start(settings, new TestClock(), (dir) => {
      const folder = join(dir, "platform", "blobs", "ab");
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "ab".padEnd(32, "0")), "stray");
    });
    await expect
      .poll(() => young.lines.filter((line) => line.msg === "removed content no row named"))
      .toEqual([expect.objectContaining({ level: LEVEL.info, orphans: 1 })]);
    expect(
      (await client.send(new HeadObjectCommand({ Bucket: settings.location.bucket, Key: key })))
        .ContentLength,
    ).toBe(5);
    const clock = new TestClock();
    clock.advance(HOUR_SECONDS + 60);
    const old = await start(settings, clock);
    await expect
      .poll(() => old.lines.filter((line) => line.msg === "removed content no row named"))
      .toEqual([expect.objectContaining({ level: LEVEL.info, orphans: 1 })]);
    await expect(
      client.send(new HeadObjectCommand({ Bucket: settings.location.bucket, Key: key })),
    ).rejects.toMatchObject({ name: "NotFound" });
  });

  it("start: with the object store down the start goes on, and the orphan sweep's failure is a warning", async () => {
    const settings = store.settings({ timeoutMs: 1000 });
    await store.stop();
    try {
      const { server, lines } = await start(settings);
      expect((await fetch(`${server.urls.ops}/healthz`)).status).toBe(503);
      await expect
        .poll(() => lines.filter((line) => line.msg === "orphan sweep failed"), { timeout: 10_000 })
        .toEqual([
          expect.objectContaining({
            level: LEVEL.warn,
            err: expect.objectContaining({ message: expect.any(String) }),
          }),
        ]);
    } finally {
      await store.start();
    }
  });
});
