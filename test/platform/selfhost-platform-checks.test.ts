import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { BlobReader } from "../../src/platform/selfhost/content/blob-reader.js";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import { SelfHostedPlatform } from "../../src/platform/selfhost/selfhost-platform.js";
import { openPackStorage } from "../../src/platform/selfhost/content/open-pack-storage.js";
import { ContentDirectory } from "../../src/platform/selfhost/content/content-directory.js";
import { UploadTokens } from "../../src/platform/selfhost/sessions/upload-tokens.js";
import { UploadSessions } from "../../src/platform/selfhost/sessions/upload-sessions.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";

let store: TestObjectStore | undefined;
let dir: string | undefined;
let platform: SelfHostedPlatform | undefined;
afterEach(async () => {
  await platform?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  [dir, platform] = [undefined, undefined];
});
afterAll(() => store?.close());

describe("SelfHostedPlatform.dependencyChecks", () => {
  it("dependencyChecks: with packs in an object store, one check, objectStore, that passes while the store answers and fails while it is down", async () => {
    store ??= await startObjectStore();
    dir = mkdtempSync(join(tmpdir(), "selfhost-platform-checks-"));
    const db = await openPlatformDatabase(dir);
    const packs = new ContentDirectory(dir);
    const { storage } = await openPackStorage(dir, store.settings({ timeoutMs: 2_000 }));
    const files = { packs, storage };
    platform = new SelfHostedPlatform({
      db,
      files,
      reader: new BlobReader(db, packs, storage),
      sessions: new UploadSessions(db),
      tokens: new UploadTokens("a secret of the checks test, long enough", () => 0),
      accountId: "acc",
      uploadUrl: "http://127.0.0.1:1/upload",
      bucketLimits: { maxBytes: 1024, maxFiles: 10 },
      now: () => 0,
    });
    const checks = platform.dependencyChecks();
    expect(Object.keys(checks)).toEqual(["objectStore"]);
    await expect(checks["objectStore"]!()).resolves.toBeUndefined();
    await store.stop();
    try {
      await expect(checks["objectStore"]!()).rejects.toThrow();
    } finally {
      await store.start();
    }
  });
});
