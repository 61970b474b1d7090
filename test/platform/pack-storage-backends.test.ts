import { join } from "node:path";
import { afterAll } from "vitest";
import { DiskRangeCache } from "../../src/platform/selfhost/content/disk-range-cache.js";
import { DiskPackStorage } from "../../src/platform/selfhost/content/disk/disk-pack-storage.js";
import { createS3Client } from "../../src/platform/selfhost/content/s3/s3-client.js";
import { S3PackStorage } from "../../src/platform/selfhost/content/s3/s3-pack-storage.js";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";
import { describeRadosgw, openRadosgw } from "../support/radosgw.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { type OpenPackStorage, packStorageContract } from "./pack-storage-contract.js";

// One S3-protocol server for the file; each storage gets a prefix of its own, so starts empty.
let objectStore: Promise<TestObjectStore> | undefined;
const radosgw = openRadosgw();
afterAll(async () => {
  await (await objectStore)?.close();
  await radosgw.close();
});

/** Packs in the store `settings` gives; short ranges read in aligned blocks of `readAheadBytes` when given. */
const openS3 =
  (store: () => Promise<{ settings(): S3Settings }>, readAheadBytes?: number): OpenPackStorage =>
  async (dir) => {
    const settings = (await store()).settings();
    return new S3PackStorage({
      client: createS3Client(settings),
      location: settings.location,
      cache: new DiskRangeCache(join(dir, "range-cache"), settings.diskCacheBytes),
      timeoutMs: settings.timeoutMs,
      ...(readAheadBytes === undefined ? {} : { readAheadBytes }),
    });
  };
const s3rver = () => (objectStore ??= startObjectStore());
const ceph = async () => radosgw;

/** Every pack backend, each run through the whole contract. A new backend is one line here. */
const BACKENDS: Record<string, OpenPackStorage> = {
  "disk (DiskPackStorage)": async (dir) => new DiskPackStorage(dir),
  "object store (S3PackStorage on s3rver)": openS3(s3rver),
  "object store read ahead in 64 KiB blocks (S3PackStorage on s3rver)": openS3(s3rver, 64 * 1024),
};

for (const [name, open] of Object.entries(BACKENDS)) packStorageContract(name, open);

// The same contract on Ceph's gateway, a real S3 implementation stricter than s3rver.
await describeRadosgw("pack storage on radosgw", () => {
  packStorageContract("object store (S3PackStorage on radosgw)", openS3(ceph));
  packStorageContract(
    "object store read ahead in 64 KiB blocks (S3PackStorage on radosgw)",
    openS3(ceph, 64 * 1024),
  );
});
