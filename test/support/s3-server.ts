import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver, { type S3rverStore } from "s3rver";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";

export const TEST_BUCKET = "deploy-packs";

/**
 * A real S3-protocol server (s3rver) on 127.0.0.1, its objects in a temporary folder, spoken to by
 * the AWS SDK over HTTP. `stop` takes it down (requests are refused, as from a store that is
 * down); `start` brings it back on the same port with the same objects.
 */
export interface TestObjectStore {
  /** Settings for the platform: the test bucket under `prefix`, short timeouts. */
  settings(overrides?: Partial<S3Settings>): S3Settings;
  endpoint: string;
  /** The folder s3rver keeps the bucket's objects in. */
  directory: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
  /** How many object reads (GetObject, ranged or not) it answered for keys under `prefix`. */
  reads(prefix: string): number;
}

/**
 * s3rver 3.7.1 reads `Range: bytes=0-0` as the whole object (`options.end || Infinity`), where S3
 * answers its first byte: a one-byte blob first in its pack came back whole and was refused as
 * damaged. This answers that range as S3 does; every other request goes to s3rver unchanged.
 */
function fixFirstByteRange(store: S3rverStore, keysRead: string[]): void {
  const getObject = store.getObject.bind(store);
  store.getObject = async (bucket, key, options) => {
    keysRead.push(key);
    if (options?.end !== 0 || (options.start ?? 0) !== 0) return getObject(bucket, key, options);
    const object = await getObject(bucket, key, { start: 0 });
    if (object?.content) {
      (object.content as NodeJS.ReadableStream & { destroy(): void }).destroy();
      object.content = createReadStream(store.getResourcePath(bucket, key, "object"), { start: 0, end: 0 });
      object.range = { start: 0, end: 0 };
    }
    return object;
  };
}

/**
 * The settings that put a server process's packs in TEST_BUCKET of `store`, under `prefix` (say
 * `processes/`): what a deployment's environment says of its object store.
 */
export function objectStoreEnv(store: TestObjectStore, prefix: string): Record<string, string> {
  return {
    OBJECT_STORE_URL: `s3://${TEST_BUCKET}/${prefix}`,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
    S3_ENDPOINT: store.endpoint,
    S3_FORCE_PATH_STYLE: "true",
  };
}

/** Starts s3rver with one empty bucket, TEST_BUCKET. */
export async function startObjectStore(): Promise<TestObjectStore> {
  const directory = mkdtempSync(join(tmpdir(), "s3rver-"));
  let port = 0;
  let server: S3rver | undefined;
  const keysRead: string[] = [];
  const start = async (): Promise<void> => {
    server = new S3rver({
      address: "127.0.0.1",
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: TEST_BUCKET }],
    });
    fixFirstByteRange(server.store, keysRead);
    port = (await server.run()).port;
  };
  const stop = async (): Promise<void> => {
    const running = server;
    server = undefined;
    await running?.close();
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  let prefixes = 0;
  return {
    endpoint,
    directory,
    settings: (overrides = {}) => ({
      // Each platform its own prefix, so tests sharing the server do not see each other's packs.
      location: { bucket: TEST_BUCKET, prefix: `run-${++prefixes}/` },
      region: "us-east-1",
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      timeoutMs: 5_000,
      diskCacheBytes: 64 * 1024 * 1024,
      ...overrides,
    }),
    stop,
    start,
    reads: (prefix) => keysRead.filter((key) => key.startsWith(prefix)).length,
    close: async () => {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
