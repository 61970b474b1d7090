import { afterAll } from "vitest";
import type { SelfHostedPlatformOptions } from "../../src/server/selfhost-wiring.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { openLocalHarness } from "./local-harness.js";
import { platformContract } from "./platform-contract.js";

const dir = tempDir("deploy-platform-");
afterAll(() => dir.cleanup());

/** The local platform behind real listeners, in a folder of its own under this file's. */
const openHarness = (extra: Partial<SelfHostedPlatformOptions> = {}) => openLocalHarness(dir.path, extra);

platformContract("local", () => openHarness());

// One S3-protocol server for the file; each platform gets a prefix of its own.
let objectStore: Promise<TestObjectStore> | undefined;
afterAll(async () => (await objectStore)?.close());
platformContract("local with packs in an object store (s3rver)", async () => {
  objectStore ??= startObjectStore();
  return openHarness({ objectStore: (await objectStore).settings() });
});
await describePostgres("local platform on PostgreSQL", () => {
  platformContract("local on PostgreSQL", () => openHarness({ postgres: testPostgres() }));
});
