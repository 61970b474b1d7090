import { afterAll } from "vitest";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { describeRadosgw, openRadosgw } from "../support/radosgw.js";
import { tempDir } from "../support/server.js";
import { openSelfHostedHarness } from "./selfhost-harness.js";
import { platformContract } from "./platform-contract.js";

// The platform contract of selfhost-platform.test.ts on Ceph's gateway (a file of its own, so it
// runs beside that one): a real S3 implementation, stricter than s3rver, alone and beside
// PostgreSQL as a multi-process deployment runs.
const dir = tempDir("deploy-platform-radosgw-");
const radosgw = openRadosgw();
afterAll(async () => {
  await radosgw.close();
  dir.cleanup();
});
await describeRadosgw("self-hosted platform with packs in radosgw", async () => {
  platformContract("self-hosted with packs in an object store (radosgw)", async () => {
    return openSelfHostedHarness(dir.path, { objectStore: radosgw.settings() });
  });
  await describePostgres("on PostgreSQL", () => {
    platformContract("self-hosted on PostgreSQL with packs in an object store (radosgw)", async () => {
      return openSelfHostedHarness(dir.path, { postgres: testPostgres(), objectStore: radosgw.settings() });
    });
  });
});
