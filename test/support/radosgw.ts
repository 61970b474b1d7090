import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from "@aws-sdk/client-s3";
import { beforeAll, describe } from "vitest";
import { createS3Client } from "../../src/platform/selfhost/content/s3/s3-client.js";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";
import { TEST_BUCKET } from "./s3-server.js";

/**
 * Ceph's S3 gateway as scripts/install-radosgw.sh starts it (its defaults; change both together),
 * or the one TEST_RADOSGW_ENDPOINT and its keys name.
 */
export const RADOSGW = {
  endpoint: process.env.TEST_RADOSGW_ENDPOINT ?? "http://127.0.0.1:7480",
  credentials: {
    accessKeyId: process.env.TEST_RADOSGW_ACCESS_KEY ?? "STATICDEPLOYTEST",
    secretAccessKey: process.env.TEST_RADOSGW_SECRET_KEY ?? "static-deploy-radosgw-test-secret",
  },
};
const INSTALL = fileURLToPath(new URL("../../scripts/install-radosgw.sh", import.meta.url));
// The gateway outlives test runs, so prefixes are named after this process as schemas are.
const RUN = `radosgw-${process.pid}-${Date.now().toString(36)}`;
let prefixes = 0;
let ready: Promise<boolean> | undefined;

/** Settings for the gateway: TEST_BUCKET under `prefix`, short timeouts. */
function settingsAt(prefix: string, overrides: Partial<S3Settings> = {}): S3Settings {
  return {
    location: { bucket: TEST_BUCKET, prefix },
    region: "us-east-1",
    endpoint: RADOSGW.endpoint,
    forcePathStyle: true,
    credentials: RADOSGW.credentials,
    timeoutMs: 5_000,
    diskCacheBytes: 64 * 1024 * 1024,
    ...overrides,
  };
}

/** Creates TEST_BUCKET (kept if this user has it already); the error when the gateway refuses. */
async function createBucket(): Promise<Error | undefined> {
  const client = createS3Client(settingsAt("", { timeoutMs: 3_000 }));
  try {
    await client.send(new CreateBucketCommand({ Bucket: TEST_BUCKET }));
    return undefined;
  } catch (error) {
    return (error as Error).name === "BucketAlreadyOwnedByYou" ? undefined : (error as Error);
  } finally {
    client.destroy();
  }
}

/** Runs scripts/install-radosgw.sh for the default gateway when we are root with apt-get. */
function install(): boolean {
  if (
    process.env.TEST_RADOSGW_ENDPOINT !== undefined ||
    process.getuid?.() !== 0 ||
    !existsSync("/usr/bin/apt-get")
  ) {
    return false;
  }
  console.warn("radosgw tests: nothing answers; starting one with scripts/install-radosgw.sh");
  return spawnSync("bash", [INSTALL], { stdio: "inherit", timeout: 600_000 }).status === 0;
}

/**
 * True when the gateway answers and holds TEST_BUCKET (started now if it can be: root, apt-get and
 * no TEST_RADOSGW_ENDPOINT of one's own). Without it a radosgw test is skipped with a message,
 * except under CI, where it must fail (describeRadosgw does both).
 */
export function radosgwReady(): Promise<boolean> {
  ready ??= (async () => {
    let error = await createBucket();
    if (error && install()) error = await createBucket();
    if (error && !process.env.CI) {
      console.warn(
        `radosgw tests skipped: no gateway at ${RADOSGW.endpoint} (${error.name}: ${error.message}); ` +
          "start one with scripts/install-radosgw.sh or set TEST_RADOSGW_ENDPOINT and its keys",
      );
    }
    return error === undefined;
  })();
  return ready;
}

/**
 * Removes every object and unfinished multipart upload under `prefix` (the gateway keeps them in
 * memory until it restarts).
 */
async function emptyPrefix(client: S3Client, prefix: string): Promise<void> {
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: TEST_BUCKET, Prefix: prefix, ContinuationToken: token }),
    );
    const keys = (page.Contents ?? []).map((object) => object.Key);
    // Sixteen at a time: a test may leave a thousand objects.
    for (let start = 0; start < keys.length; start += 16) {
      await Promise.all(
        keys
          .slice(start, start + 16)
          .map((Key) => client.send(new DeleteObjectCommand({ Bucket: TEST_BUCKET, Key }))),
      );
    }
    token = page.NextContinuationToken;
  } while (token);
  const { Uploads } = await client.send(
    new ListMultipartUploadsCommand({ Bucket: TEST_BUCKET, Prefix: prefix }),
  );
  for (const { Key, UploadId } of Uploads ?? [])
    await client.send(new AbortMultipartUploadCommand({ Bucket: TEST_BUCKET, Key, UploadId }));
}

/** The gateway seen by one test file: a prefix of its own per `settings()`, emptied by `close`. */
export interface RadosgwStore {
  endpoint: string;
  /** Settings for the platform: TEST_BUCKET under a prefix no other test uses, short timeouts. */
  settings(overrides?: Partial<S3Settings>): S3Settings;
  /** Removes the objects under every prefix `settings` gave. */
  close(): Promise<void>;
}

/** The gateway for one test file (describeRadosgw has checked it answers). */
export function openRadosgw(): RadosgwStore {
  const given: string[] = [];
  return {
    endpoint: RADOSGW.endpoint,
    settings: (overrides = {}) => {
      given.push(`${RUN}-${++prefixes}/`);
      return settingsAt(given.at(-1)!, overrides);
    },
    close: async () => {
      const client = createS3Client(settingsAt(""));
      try {
        for (const prefix of given.splice(0)) await emptyPrefix(client, prefix);
      } finally {
        client.destroy();
      }
    },
  };
}

/**
 * A describe block of tests on radosgw: skipped with a message when no gateway answers, failing
 * under CI=true instead (as describePostgres does). Call at the top level, with `await`; `body` may
 * be async, to nest describePostgres in it.
 */
export async function describeRadosgw(name: string, body: () => void | Promise<void>): Promise<void> {
  const present = await radosgwReady();
  describe.skipIf(!present && !process.env.CI)(name, async () => {
    beforeAll(() => {
      if (!present) throw new Error(`no radosgw at ${RADOSGW.endpoint}: run scripts/install-radosgw.sh`);
    });
    await body();
  });
}
