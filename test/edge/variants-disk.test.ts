import { buffer } from "node:stream/consumers";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobCache } from "../../src/edge/blob-cache.js";
import { VariantMaker } from "../../src/edge/variants.js";
import type { EdgeStorage } from "../../src/edge/edge-storage.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

describe("VariantMaker.onDisk", () => {
  let edge: TestEdge;
  let storage: EdgeStorage;
  let variants: VariantMaker;

  beforeAll(async () => {
    edge = await startTestEdge();
    storage = edge.storage;
    variants = new VariantMaker(new BlobCache(), storage);
  });
  afterAll(() => edge.close());

  it("onDisk: a blob whose row says another size makes no variant and fails, naming both sizes", async () => {
    const bytes = Buffer.from("p { margin: 0 } ".repeat(4096));
    const hash = await edge.addBlob(bytes, "/big.css");
    await expect(variants.onDisk(hash, "gzip", bytes.length + 1)).rejects.toThrow(
      `blob ${hash} holds ${bytes.length} bytes, its row says ${bytes.length + 1}`,
    );
    expect(await storage.variantSize(hash, "gzip")).toBeUndefined();
    // The same blob with its true size: the variant's file is made, and decodes to the blob.
    const variant = (await variants.onDisk(hash, "gzip", bytes.length))!;
    const made = await buffer(variant.stream(0, variant.size - 1));
    variant.close();
    expect(gunzipSync(made)).toEqual(bytes);
    expect(await storage.variantSize(hash, "gzip")).toBe(made.length);
  });
});
