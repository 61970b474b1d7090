import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createObjectStoreClient } from "../../src/platform/local/object-store-client.js";
import { MULTIPART_FROM_BYTES, PART_BYTES, uploadFile } from "../../src/platform/local/s3-upload.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { tempDir } from "../support/server.js";

describe("uploadFile", () => {
  let store: TestObjectStore;
  const dir = tempDir("deploy-s3-upload-");
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => {
    await store.close();
    dir.cleanup();
  });

  it("uploadFile: a file from MULTIPART_FROM_BYTES goes up in parts and reads back whole, across part boundaries", async () => {
    const settings = store.settings();
    const client = createObjectStoreClient(settings);
    try {
      const bytes = randomBytes(MULTIPART_FROM_BYTES + 12_345);
      const path = join(dir.path, "big.pack");
      writeFileSync(path, bytes);
      const target = { Bucket: settings.location.bucket, Key: `${settings.location.prefix}big.pack` };
      let requests = 0;
      await uploadFile(client, target, path, bytes.length, () => {
        requests++;
        return AbortSignal.timeout(10_000);
      });
      // Each request has its own deadline: create, three parts, complete.
      expect(requests).toBe(5);
      const start = PART_BYTES - 10;
      const reply = await client.send(
        new GetObjectCommand({ ...target, Range: `bytes=${start}-${start + 19}` }),
      );
      expect(reply.ContentRange).toBe(`bytes ${start}-${start + 19}/${bytes.length}`);
      expect(Buffer.from(await reply.Body!.transformToByteArray())).toEqual(
        bytes.subarray(start, start + 20),
      );
      const tail = await client.send(
        new GetObjectCommand({ ...target, Range: `bytes=${bytes.length - 5}-` }),
      );
      expect(Buffer.from(await tail.Body!.transformToByteArray())).toEqual(bytes.subarray(bytes.length - 5));
    } finally {
      client.destroy();
    }
  });
});
