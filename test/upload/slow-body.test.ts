import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, type TestProject } from "../support/deploy-flow.js";
import { multipartBody } from "../support/multipart.js";
import {
  closedWithin,
  openSocket,
  parseResponse,
  rawMessage,
  type RawResponse,
} from "../support/raw-http.js";
import { startTestServer } from "../support/server.js";
import { prepareFiles, type PreparedFiles } from "../support/upload-flow.js";

// Issue 31, H5's other half: the API cut off a body that trickled below the minimum pace, the
// upload service did not, so a stranger could hold a bucket connection for the whole request
// timeout with a few bytes a second.

/** The upload service's code for a body cut off for arriving too slowly. */
const REQUEST_TIMEOUT = 10014;

describe("upload service: slow bodies, with a minimum pace of 1 KiB a second over windows of 400 ms", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let p: TestProject;
  let files: PreparedFiles;
  let bucket: { body: Buffer; contentType: string };
  beforeAll(async () => {
    server = await startTestServer({ bodyPace: { minBytesPerSecond: 1024, windowMs: 400 } });
    p = await createTestProject(server.urls.api, "slow-bucket");
    files = await prepareFiles(server.urls.api, p, { "/a.bin": randomBytes(24 * 1024) });
    const [hash] = files.prepared.buckets[0] as string[];
    bucket = multipartBody([{ hash: hash!, bytes: files.byHash.get(hash!)! }]);
  });
  afterAll(async () => server.stop());

  /** Opens a bucket request declaring the whole bucket and sends its first `first` bytes. */
  async function openBucket(first: number) {
    const url = new URL(files.prepared.urls.upload);
    const socket = await openSocket(url.origin);
    const closed = closedWithin(socket, 5_000);
    socket.write(
      rawMessage(
        "POST",
        url.pathname + url.search,
        [
          ["Host", url.host],
          ["Connection", "close"],
          ["Authorization", `Bearer ${files.prepared.uploadJwt}`],
          ["Content-Type", bucket.contentType],
          ["Content-Length", String(bucket.body.length)],
        ],
        bucket.body.subarray(0, first),
      ),
    );
    const answer = closed.then(({ received }) => parseResponse(received));
    answer.catch(() => undefined);
    return { socket, answer };
  }

  const envelope = (response: RawResponse) => JSON.parse(response.body.toString("utf8"));

  it("bucket upload: a body trickled below the minimum pace is cut off with 408 and the JSON error, nothing recorded", async () => {
    const trickle = await openBucket(200);
    // 10 bytes every 50 ms: 200 bytes a second, under the 1,024 asked for.
    let offset = 200;
    const sending = setInterval(() => {
      if (trickle.socket.destroyed || offset >= bucket.body.length) return;
      trickle.socket.write(bucket.body.subarray(offset, offset + 10));
      offset += 10;
    }, 50);
    let response: RawResponse;
    try {
      response = await trickle.answer;
    } finally {
      clearInterval(sending);
    }
    expect(response.status).toBe(408);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(envelope(response)).toEqual({
      success: false,
      errors: [{ code: REQUEST_TIMEOUT, message: "request body arrived slower than 1024 bytes a second" }],
      messages: [],
      result: null,
    });
    // Nothing of it was taken: the asset is still missing, and the whole bucket is what completes it.
    const again = await fetch(files.prepared.urls.upload, {
      method: "POST",
      headers: { authorization: `Bearer ${files.prepared.uploadJwt}`, "content-type": bucket.contentType },
      body: bucket.body,
    });
    expect(again.status).toBe(201);
  });

  it("bucket upload: a declared body that sends nothing is cut off with 408 within a window or two", async () => {
    const idle = await openBucket(0);
    const response = await idle.answer;
    expect(response.status).toBe(408);
    expect(envelope(response).errors[0].code).toBe(REQUEST_TIMEOUT);
  });

  it("bucket upload: a body sent steadily above the minimum pace is read whole, however long it takes", async () => {
    // Its own session: the first test completed the other.
    const steadyFiles = await prepareFiles(server.urls.api, p, { "/b.bin": randomBytes(48 * 1024) });
    const [hash] = steadyFiles.prepared.buckets[0] as string[];
    const steadyBucket = multipartBody([{ hash: hash!, bytes: steadyFiles.byHash.get(hash!)! }]);
    const url = new URL(steadyFiles.prepared.urls.upload);
    const socket = await openSocket(url.origin);
    const closed = closedWithin(socket, 10_000);
    socket.write(
      rawMessage("POST", url.pathname + url.search, [
        ["Host", url.host],
        ["Connection", "close"],
        ["Authorization", `Bearer ${steadyFiles.prepared.uploadJwt}`],
        ["Content-Type", steadyBucket.contentType],
        ["Content-Length", String(steadyBucket.body.length)],
      ]),
    );
    // 2 KiB every 25 ms (80 KiB a second), for longer than a window: faster than the pace.
    let offset = 0;
    const sending = setInterval(() => {
      if (offset >= steadyBucket.body.length) return clearInterval(sending);
      socket.write(steadyBucket.body.subarray(offset, offset + 2048));
      offset += 2048;
    }, 25);
    try {
      const response = parseResponse((await closed).received);
      expect(response.status, response.body.toString()).toBe(201);
    } finally {
      clearInterval(sending);
    }
  });
});
