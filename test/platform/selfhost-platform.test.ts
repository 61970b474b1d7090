import { afterAll } from "vitest";
import type { SelfHostedPlatformOptions } from "../../src/server/selfhost-wiring.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { openSelfHostedHarness } from "./selfhost-harness.js";
import { platformContract } from "./platform-contract.js";

const dir = tempDir("deploy-platform-");
afterAll(() => dir.cleanup());

/** The self-hosted platform behind real listeners, in a folder of its own under this file's. */
const openHarness = (extra: Partial<SelfHostedPlatformOptions> = {}) =>
  openSelfHostedHarness(dir.path, extra);

platformContract("self-hosted", () => openHarness());

// One S3-protocol server for the file; each platform gets a prefix of its own.
let objectStore: Promise<TestObjectStore> | undefined;
afterAll(async () => (await objectStore)?.close());
platformContract("self-hosted with packs in an object store (s3rver)", async () => {
  objectStore ??= startObjectStore();
  return openHarness({ objectStore: (await objectStore).settings() });
});
await describePostgres("self-hosted platform on PostgreSQL", () => {
  platformContract("self-hosted on PostgreSQL", () => openHarness({ postgres: testPostgres() }));
});
