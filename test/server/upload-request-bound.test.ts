import { afterEach, describe, expect, it } from "vitest";
import { createTestProject } from "../support/deploy-flow.js";
import { multipartBody } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { prepareFiles, rawUpload } from "../support/upload-flow.js";

const BUCKET_MAX_BYTES = 1000;
const BUCKET_MAX_FILES = 4;
/** A full bucket, 512 bytes of multipart framing per file it may hold, and 1 MiB more. */
const BOUND = BUCKET_MAX_BYTES + BUCKET_MAX_FILES * 512 + 1024 * 1024;

describe("upload request size", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  // Started inside each test, not in a hook: per-test coverage (Stryker) counts only what a test
  // itself runs, and the bound is computed when the server starts.
  afterEach(() => server.stop());

  /** A server with small buckets, and a valid bucket of one file padded to `size` bytes with a preamble, which multipart skips. */
  async function paddedBucket(label: string, size: number) {
    server = await startTestServer({ bucketMaxBytes: BUCKET_MAX_BYTES, bucketMaxFiles: BUCKET_MAX_FILES });
    const p = await createTestProject(server.urls.api, label);
    const content = Buffer.from(`padded ${label}`);
    const { prepared, byHash } = await prepareFiles(server.urls.api, p, { "/index.html": content });
    const [hash] = prepared.buckets[0] as string[];
    const { body, contentType } = multipartBody([{ hash: hash!, bytes: byHash.get(hash!)! }]);
    // The preamble ends with the CRLF that must come before the first delimiter.
    const preamble = Buffer.concat([Buffer.alloc(size - body.length - 2, "A"), Buffer.from("\r\n")]);
    const padded = Buffer.concat([preamble, body]);
    expect(padded.length).toBe(size);
    return {
      url: prepared.urls.upload as string,
      token: prepared.uploadJwt as string,
      body: padded,
      contentType,
    };
  }

  it("upload: a request of exactly the bucket's bytes, its framing and 1 MiB is read whole", async () => {
    const bucket = await paddedBucket("bound-exact", BOUND);
    const reply = await rawUpload(bucket.url, bucket);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  });

  it("upload: a request one byte over that bound is refused with 413, naming the bound", async () => {
    const bucket = await paddedBucket("bound-over", BOUND + 1);
    const reply = await rawUpload(bucket.url, bucket);
    expect(reply.status).toBe(413);
    expect(reply.body.errors).toEqual([{ code: 10006, message: `bucket exceeds ${BOUND} bytes` }]);
  });
});
