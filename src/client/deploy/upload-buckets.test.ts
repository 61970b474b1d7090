import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { defaultRetryPolicy, type RetryNotice } from "../net/retry.js";
import { ok, startUploadStandIn, type UploadStandIn } from "../../../test/support/upload-stand-in.js";
import { uploadBuckets, UploadTokenExpiredError } from "./upload-buckets.js";
import { refusal } from "../test-rejection.js";

let standIn: UploadStandIn;
let url: string;
let HASHES: string[];

beforeAll(async () => {
  standIn = await startUploadStandIn();
  url = standIn.url;
  HASHES = standIn.hashes;
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.answers = [];
  standIn.received = 0;
});

function upload(
  buckets: string[][],
  options: { onRetry?: (notice: RetryNotice) => void; concurrency?: number } = {},
) {
  const sent = { files: 0, bytes: 0 };
  const held: string[][] = [];
  const result = uploadBuckets(
    { uploadUrl: url, uploadJwt: "token", buckets, fileByHash: standIn.files },
    {
      concurrency: options.concurrency ?? 1,
      retry: defaultRetryPolicy({ maxAttempts: 3, sleep: async () => {} }),
      onRetry: options.onRetry,
      onSent: (sentFiles, bytes) => {
        sent.files += sentFiles;
        sent.bytes += bytes;
      },
      onBucket: (assets) => held.push(assets.map((asset) => asset.hash)),
    },
  );
  return { result, sent, held };
}

describe("uploadBuckets", () => {
  it("uploadBuckets: returns the completion token the service issued, told each held bucket", async () => {
    standIn.answers = [ok(), ok("completion-token")];
    const run = upload([[HASHES[0]!], [HASHES[1]!, HASHES[2]!]]);
    expect(await run.result).toBe("completion-token");
    expect(run.held).toEqual([[HASHES[0]], [HASHES[1], HASHES[2]]]);
    expect(run.sent).toEqual({ files: 3, bytes: 24 });
  });

  it("uploadBuckets: no token when the answers carry none, an empty one, or no JSON", async () => {
    standIn.answers = [ok(), ok(""), { status: 200, body: "stored" }, { status: 200, body: "null" }];
    const run = upload([[HASHES[0]!], [HASHES[1]!], [HASHES[2]!], [HASHES[3]!]]);
    expect(await run.result).toBeUndefined();
    expect(run.held).toHaveLength(4);
  });

  it("uploadBuckets: a bucket naming a hash no file has is BAD_BUCKET, before anything is sent", async () => {
    const error = await refusal(upload([["f".repeat(32)]]).result);
    expect(error.code).toBe("BAD_BUCKET");
    expect(error.message).toBe(`the server asked for ${"f".repeat(32)}, which no file of this folder has`);
    expect(standIn.received).toBe(0);
  });

  it("uploadBuckets: a 401 is UploadTokenExpiredError naming the service, not retried", async () => {
    standIn.answers = [{ status: 401, body: "{}" }];
    const error = await refusal(upload([[HASHES[0]!]]).result);
    expect(error).toBeInstanceOf(UploadTokenExpiredError);
    expect(error.code).toBe("UPLOAD_TOKEN_EXPIRED");
    expect(error.message).toBe(`the upload service at ${url} refused the upload token (expired)`);
    expect(standIn.received).toBe(1);
  });

  it("uploadBuckets: a refusal names up to three files of the bucket, the service's code and message", async () => {
    standIn.answers = [
      {
        status: 400,
        body: JSON.stringify({ success: false, errors: [{ code: 10400, message: "bad part" }] }),
      },
    ];
    const run = upload([HASHES.slice(0, 4)]);
    const error = await refusal(run.result);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe("10400");
    expect(error.message).toBe(
      "could not upload 4 files (page-0.html, page-1.html, page-2.html, …): bad part",
    );
    expect(standIn.received).toBe(1);
    // What went out for the refused attempt is taken back.
    expect(run.sent).toEqual({ files: 0, bytes: 0 });
  });

  it("uploadBuckets: a bucket of three names all three, without an ellipsis", async () => {
    standIn.answers = [
      { status: 400, body: JSON.stringify({ errors: [{ code: "BAD", message: "bad part" }] }) },
    ];
    const error = await refusal(upload([HASHES.slice(0, 3)]).result);
    expect(error.message).toBe("could not upload 3 files (page-0.html, page-1.html, page-2.html): bad part");
  });

  it("uploadBuckets: a refusal that names a hash of the bucket says which file holds it", async () => {
    const message = `hash mismatch for ${HASHES[1]}`;
    standIn.answers = [{ status: 400, body: JSON.stringify({ errors: [{ code: 10400, message }] }) }];
    const error = await refusal(upload([[HASHES[0]!, HASHES[1]!]]).result);
    expect((error as ApiError).serverMessage).toBe(`${message} [${HASHES[1]} is page-1.html]`);
  });

  it("uploadBuckets: a refusal without the service's envelope is HTTP_<status> with the body's first 200 characters", async () => {
    standIn.answers = [
      { status: 413, body: `  ${"x".repeat(250)}  `, headers: { "content-type": "text/plain" } },
      { status: 404, body: "", headers: {} },
      { status: 300, body: "[]", headers: {} },
    ];
    const long = (await refusal(upload([[HASHES[0]!]]).result)) as ApiError;
    expect([long.code, long.status, long.serverMessage]).toEqual(["HTTP_413", 413, "x".repeat(200)]);
    const empty = (await refusal(upload([[HASHES[0]!]]).result)) as ApiError;
    expect([empty.code, empty.serverMessage]).toEqual(["HTTP_404", "(empty body)"]);
    // Only a 2xx is success.
    const redirect = (await refusal(upload([[HASHES[0]!]]).result)) as ApiError;
    expect(redirect.code).toBe("HTTP_300");
  });

  it("uploadBuckets: a 429 is retried after its Retry-After, a 503 after a backoff; files counted once", async () => {
    standIn.answers = [
      { status: 429, body: "{}", headers: { "retry-after": "7" } },
      { status: 503, body: "{}" },
      ok("done"),
    ];
    const notices: RetryNotice[] = [];
    const run = upload([[HASHES[0]!, HASHES[1]!]], { onRetry: (notice) => notices.push(notice) });
    expect(await run.result).toBe("done");
    expect(notices.map((notice) => notice.attempt)).toEqual([1, 2]);
    expect(notices[0]!.delayMs).toBe(7000);
    expect((notices[1]!.error as ApiError).status).toBe(503);
    expect(standIn.received).toBe(3);
    expect(run.sent).toEqual({ files: 2, bytes: 16 });
  });

  it("uploadBuckets: the first refused bucket stops the others from starting", async () => {
    standIn.answers = [{ status: 400, body: "{}" }];
    await refusal(upload([[HASHES[0]!], [HASHES[1]!], [HASHES[2]!]]).result);
    expect(standIn.received).toBe(1);
  });
  it("uploadBuckets: each bucket is a POST with the upload token, the multipart type, its exact length, asking for JSON", async () => {
    await upload([[HASHES[0]!]]).result;
    expect(standIn.last?.method).toBe("POST");
    const headers = standIn.last!.headers;
    expect(headers.authorization).toBe("Bearer token");
    expect(headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(Number(headers["content-length"])).toBeGreaterThan(8);
    expect(headers.accept).toBe("application/json");
  });

  it("uploadBuckets: a token issued for an earlier bucket is kept when a later answer has none, or one that is not text", async () => {
    standIn.answers = [
      ok("first-token"),
      ok(),
      { status: 200, body: JSON.stringify({ result: { jwt: 5 } }) },
    ];
    expect(await upload([[HASHES[0]!], [HASHES[1]!], [HASHES[2]!]]).result).toBe("first-token");
  });

  it("uploadBuckets: works without the progress and bucket hooks", async () => {
    standIn.answers = [{ status: 503, body: "{}" }, ok("done")];
    const result = uploadBuckets(
      { uploadUrl: url, uploadJwt: "token", buckets: [[HASHES[0]!]], fileByHash: standIn.files },
      { concurrency: 1, retry: defaultRetryPolicy({ maxAttempts: 2, sleep: async () => {} }) },
    );
    expect(await result).toBe("done");
  });
});
