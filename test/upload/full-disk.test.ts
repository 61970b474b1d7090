import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestProject } from "../support/deploy-flow.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { blobStoreState, snapshotStore } from "../support/store-snapshot.js";
import { prepareFiles } from "../support/upload-flow.js";

/**
 * A disk that fills up while a bucket arrives: the one thing here that cannot be made real without
 * filling this machine's disk. Creating a temporary blob file fails with ENOSPC, as the system
 * would, while `disk.full` is set; everything else is the real file system.
 */
const disk = vi.hoisted(() => ({ full: false, fillsAfter: undefined as number | undefined }));

vi.mock("node:fs/promises", async (importOriginal) =>
  (await import("../support/full-disk.js")).fullDiskFs(await importOriginal(), disk),
);

describe("a full disk during an upload", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    disk.full = false;
    disk.fillsAfter = undefined;
    await server.stop();
  });

  it("upload: 507 INSUFFICIENT_STORAGE (10009), not 500, when the disk fills while a bucket is stored; the part stays missing", async () => {
    const p = await createTestProject(server.urls.api, "full-disk-upload");
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, {
      "/index.html": "<p>no room left</p>",
    });
    const [hash] = prepared.buckets[0];
    disk.full = true;
    const res = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
      { hash, bytes: byHash.get(hash)! },
    ]);
    disk.full = false;
    expect(res.status).toBe(507);
    expect(res.body.errors[0].code).toBe(10009);
    expect(res.body.errors[0].message).toContain("short of storage");
    const state = blobStoreState(server.dataDir);
    expect(state.unnamedFiles).toEqual([]);
    expect(state.temporaryFiles).toEqual([]);
    // Nothing was recorded: once there is room, the same upload completes.
    const again = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
      { hash, bytes: byHash.get(hash)! },
    ]);
    expect(again.status).toBe(201);
  });

  it("upload: 507 INSUFFICIENT_STORAGE when the disk fills in the middle of a pack; no partial pack, no row, and the same upload completes once there is room", async () => {
    const p = await createTestProject(server.urls.api, "full-disk-mid-pack");
    const files: Record<string, string> = {};
    // 3 MiB in all, more than the pack writer's 1 MiB buffer: the disk fills after its first write.
    for (let i = 0; i < 24; i++) files[`/part-${i}.txt`] = `${i} `.repeat(64 * 1024);
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, files);
    const parts = prepared.buckets[0].map((hash: string) => ({ hash, bytes: byHash.get(hash)! }));
    const before = snapshotStore(server.dataDir);
    disk.fillsAfter = 1024 * 1024;
    const res = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
    disk.fillsAfter = undefined;
    expect(res.status).toBe(507);
    expect(res.body.errors[0].code).toBe(10009);
    expect(snapshotStore(server.dataDir)).toEqual(before);
    const state = blobStoreState(server.dataDir);
    expect(state.unnamedFiles).toEqual([]);
    expect(state.temporaryFiles).toEqual([]);
    const again = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, parts);
    expect(again.status).toBe(201);
  });
});
