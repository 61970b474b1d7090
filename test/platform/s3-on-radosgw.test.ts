import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  GetObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeEach, expect, it } from "vitest";
import { DiskRangeCache } from "../../src/platform/selfhost/content/disk-range-cache.js";
import { createS3Client } from "../../src/platform/selfhost/content/s3/s3-client.js";
import { S3PackStorage } from "../../src/platform/selfhost/content/s3/s3-pack-storage.js";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";
import {
  MULTIPART_FROM_BYTES,
  PART_BYTES,
  uploadFile,
} from "../../src/platform/selfhost/content/s3/s3-upload.js";
import { describeRadosgw, openRadosgw } from "../support/radosgw.js";
import { tempDir } from "../support/server.js";

// What s3rver cannot show and Ceph's gateway can: a second page of a listing (s3rver's
// continuation token needs DES, which OpenSSL 3 refuses), the uploads a multipart upload leaves
// behind (s3rver lists none), and S3's 5 MiB floor for every part but the last.
const radosgw = openRadosgw();
afterAll(async () => radosgw.close());

await describeRadosgw("S3 on radosgw", () => {
  let dir: ReturnType<typeof tempDir>;
  let settings: S3Settings;
  let client: S3Client;
  /** The commands sent through `client`, by name. */
  let sent: string[];
  beforeEach(() => {
    dir = tempDir("s3-radosgw-");
    settings = radosgw.settings();
    client = createS3Client(settings);
    sent = [];
    const send = client.send.bind(client);
    client.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      sent.push(command.constructor.name.replace(/Command$/, ""));
      return (send as (...all: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.send;
  });
  afterEach(() => {
    client.destroy();
    dir.cleanup();
  });
  const signal = () => AbortSignal.timeout(10_000);
  const keyOf = (name: string) => `${settings.location.prefix}${name}`;

  it("list: more pack objects than one page (1,000 keys) are listed, every one once, in two requests", async () => {
    const ids = Array.from({ length: 1_001 }, (_, n) => n.toString(16).padStart(24, "0"));
    const { bucket } = settings.location;
    // Sixteen at a time: the gateway answers each in a few milliseconds.
    for (let start = 0; start < ids.length; start += 16) {
      await Promise.all(
        ids.slice(start, start + 16).map((id) =>
          client.send(
            new PutObjectCommand({
              Bucket: bucket,
              Key: keyOf(`packs/${id}.pack`),
              Body: "",
              ContentLength: 0,
            }),
          ),
        ),
      );
    }
    const storage = new S3PackStorage({
      client,
      location: settings.location,
      cache: new DiskRangeCache(join(dir.path, "cache"), 1024 * 1024),
      timeoutMs: settings.timeoutMs,
    });
    sent = [];
    const packs = await storage.list();
    expect(sent).toEqual(["ListObjectsV2", "ListObjectsV2"]);
    expect(packs.map((pack) => pack.id).sort()).toEqual(ids);
  }, 60_000);

  it("uploadFile: a file of MULTIPART_FROM_BYTES goes up in PART_BYTES parts and reads back whole", async () => {
    const bytes = randomBytes(MULTIPART_FROM_BYTES + 12_345);
    const path = join(dir.path, "big.pack");
    writeFileSync(path, bytes);
    const target = { Bucket: settings.location.bucket, Key: keyOf("big.pack") };
    await uploadFile(client, target, path, bytes.length, signal);
    expect(sent).toEqual([
      "CreateMultipartUpload",
      "UploadPart",
      "UploadPart",
      "UploadPart",
      "CompleteMultipartUpload",
    ]);
    const reply = await client.send(new GetObjectCommand(target));
    expect(Buffer.from(await reply.Body!.transformToByteArray()).equals(bytes)).toBe(true);
    // Across the first part boundary, as the edge reads a range of a pack.
    const range = await client.send(
      new GetObjectCommand({ ...target, Range: `bytes=${PART_BYTES - 3}-${PART_BYTES + 2}` }),
    );
    expect(Buffer.from(await range.Body!.transformToByteArray())).toEqual(
      bytes.subarray(PART_BYTES - 3, PART_BYTES + 3),
    );
  });

  it("uploadFile: a file that ends before its size fails; its multipart upload is aborted, none is left listed and no object appears", async () => {
    const path = join(dir.path, "short.pack");
    writeFileSync(path, randomBytes(PART_BYTES + 10));
    const size = MULTIPART_FROM_BYTES + 5;
    const target = { Bucket: settings.location.bucket, Key: keyOf("short.pack") };
    await expect(uploadFile(client, target, path, size, signal)).rejects.toThrow(
      `${path} ends before ${size} bytes`,
    );
    expect(sent).toEqual(["CreateMultipartUpload", "UploadPart", "AbortMultipartUpload"]);
    const uploads = await client.send(
      new ListMultipartUploadsCommand({ Bucket: target.Bucket, Prefix: settings.location.prefix }),
    );
    expect(uploads.Uploads ?? []).toEqual([]);
    await expect(client.send(new GetObjectCommand(target))).rejects.toMatchObject({ name: "NoSuchKey" });
  });
});
