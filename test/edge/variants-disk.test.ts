import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BlobCache } from "../../src/edge/blob-cache.js";
import { VariantMaker } from "../../src/edge/variants.js";
import { BlobReader } from "../../src/platform/selfhost/content/blob-reader.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

describe("VariantMaker.onDisk", () => {
  let edge: TestEdge;
  let variants: VariantMaker;

  beforeAll(async () => {
    edge = await startTestEdge();
    variants = new VariantMaker(
      new BlobCache(),
      new BlobReader(edge.db, edge.packs, edge.files.storage),
      edge.packs,
    );
  });
  afterAll(() => edge.close());

  it("onDisk: a blob whose row says another size makes no variant and fails, naming both sizes", async () => {
    const bytes = Buffer.from("p { margin: 0 } ".repeat(4096));
    const hash = await edge.addBlob(bytes, "/big.css");
    await expect(variants.onDisk(hash, "gzip", bytes.length + 1)).rejects.toThrow(
      `blob ${hash} holds ${bytes.length} bytes, its row says ${bytes.length + 1}`,
    );
    expect(await variants.existingSize(hash, "gzip")).toBeUndefined();
    // The same blob with its true size: the variant's file is made, and decodes to the blob.
    const path = await variants.onDisk(hash, "gzip", bytes.length);
    expect(gunzipSync(readFileSync(path!))).toEqual(bytes);
    expect(await variants.existingSize(hash, "gzip")).toBe(readFileSync(path!).length);
  });
});
