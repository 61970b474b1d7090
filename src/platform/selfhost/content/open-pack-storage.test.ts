import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DiskPackStorage } from "./disk/disk-pack-storage.js";
import { OBJECT_STORE_ORPHAN_GRACE_MS, openPackStorage } from "./open-pack-storage.js";
import { PackWriter } from "./pack-writer.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "open-pack-storage-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("openPackStorage", () => {
  it("openPackStorage: without an object store, pack files under dir, not shared", async () => {
    const { storage, shared } = await openPackStorage(dir, undefined);
    try {
      expect(storage).toBeInstanceOf(DiskPackStorage);
      expect(storage.kind).toBe("local");
      expect(shared).toBe(false);
      const writer = new PackWriter(join(dir, "w.tmp"));
      await writer.append(Buffer.from("bytes"));
      const { id } = await storage.commit(writer);
      expect(existsSync(join(dir, "packs", `${id}.pack`))).toBe(true);
    } finally {
      await storage.close();
    }
  });

  it("openPackStorage: with an object store, its packs there (its client, bucket and timeout) and its range cache in dir/range-cache, shared", async () => {
    const { storage, shared } = await openPackStorage(dir, {
      location: { bucket: "deploy-packs", prefix: "" },
      region: "us-east-1",
      endpoint: "http://127.0.0.1:9",
      forcePathStyle: true,
      credentials: { accessKeyId: "a", secretAccessKey: "b" },
      // Long enough that a loaded machine's first use of the SDK is refused, not cut short (the
      // check waits 3 s at most, whatever the timeout).
      timeoutMs: 30_000,
      diskCacheBytes: 1024,
    });
    try {
      expect(storage.kind).toBe("object-store");
      expect(shared).toBe(true);
      expect(existsSync(join(dir, "range-cache"))).toBe(true);
      expect(existsSync(join(dir, "packs"))).toBe(false);
      // Its client, bucket and timeout are the settings': nothing listens on port 9, so refused.
      // Asked again while the answer is the check's own 3 s cap: on a busy machine the SDK's first
      // use alone can take that long.
      const refusal = async () => {
        const error = await storage.check().catch((failure: unknown) => failure as Error);
        return (error?.cause as Error | undefined)?.message;
      };
      await expect.poll(refusal, { timeout: 20_000 }).toBe("reaching the bucket: ECONNREFUSED");
    } finally {
      await storage.close();
    }
  });

  it("OBJECT_STORE_ORPHAN_GRACE_MS: one hour", () => {
    expect(OBJECT_STORE_ORPHAN_GRACE_MS).toBe(3_600_000);
  });
});
