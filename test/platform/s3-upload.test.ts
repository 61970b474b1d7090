import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3Client } from "../../src/platform/selfhost/content/s3/s3-client.js";
import {
  MULTIPART_FROM_BYTES,
  PART_BYTES,
  uploadFile,
} from "../../src/platform/selfhost/content/s3/s3-upload.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { tempDir } from "../support/server.js";

// object-store-upload.test.ts has the multipart upload across part boundaries and the refused PutObject.
describe("uploadFile: sizes and failures", () => {
  let store: TestObjectStore;
  const dir = tempDir("s3-upload-");
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => {
    await store.close();
    dir.cleanup();
  });

  /** A client of the store whose sent commands are named in `sent`, and a target under its prefix. */
  function clientOf(name: string): {
    client: S3Client;
    sent: string[];
    target: { Bucket: string; Key: string };
  } {
    const settings = store.settings();
    const client = createS3Client(settings);
    const sent: string[] = [];
    const send = client.send.bind(client);
    client.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      sent.push(command.constructor.name.replace(/Command$/, ""));
      return (send as (...all: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.send;
    return {
      client,
      sent,
      target: { Bucket: settings.location.bucket, Key: `${settings.location.prefix}${name}` },
    };
  }
  const signal = () => AbortSignal.timeout(10_000);

  it("uploadFile: a file of one byte less than MULTIPART_FROM_BYTES goes up in one PutObject; one of MULTIPART_FROM_BYTES in PART_BYTES parts", async () => {
    expect(MULTIPART_FROM_BYTES).toBe(16 * 1024 * 1024);
    expect(PART_BYTES).toBe(8 * 1024 * 1024);
    for (const [size, commands] of [
      [MULTIPART_FROM_BYTES - 1, ["PutObject"]],
      [
        MULTIPART_FROM_BYTES,
        ["CreateMultipartUpload", "UploadPart", "UploadPart", "CompleteMultipartUpload"],
      ],
    ] as const) {
      const { client, sent, target } = clientOf(`${size}.pack`);
      try {
        const bytes = randomBytes(size);
        const path = join(dir.path, `${size}.pack`);
        writeFileSync(path, bytes);
        await uploadFile(client, target, path, size, signal);
        expect(sent).toEqual(commands);
        const reply = await client.send(new GetObjectCommand(target));
        expect(Buffer.from(await reply.Body!.transformToByteArray()).equals(bytes)).toBe(true);
      } finally {
        client.destroy();
      }
    }
  });

  it("uploadFile: a file that ends before its size fails saying so; its multipart upload is aborted and no object appears", async () => {
    const { client, sent, target } = clientOf("short.pack");
    try {
      const path = join(dir.path, "short.pack");
      writeFileSync(path, randomBytes(PART_BYTES + 10));
      const size = MULTIPART_FROM_BYTES + 5;
      await expect(uploadFile(client, target, path, size, signal)).rejects.toThrow(
        `${path} ends before ${size} bytes`,
      );
      expect(sent).toEqual(["CreateMultipartUpload", "UploadPart", "AbortMultipartUpload"]);
      await expect(client.send(new GetObjectCommand(target))).rejects.toMatchObject({ name: "NoSuchKey" });
    } finally {
      client.destroy();
    }
  });
});
