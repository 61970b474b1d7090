import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import type { PreparedDeploy } from "../net/api-types.js";
import { defaultRetryPolicy } from "../net/retry.js";
import { ok, startUploadStandIn, type UploadStandIn } from "../../../test/support/upload-stand-in.js";
import { uploadAll } from "./upload-rounds.js";
import { capturedContext } from "./test-deploy-kit.js";
import { refusal } from "../test-rejection.js";

let standIn: UploadStandIn;

beforeAll(async () => {
  standIn = await startUploadStandIn();
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.answers = [];
  standIn.received = 0;
});

/** A captured terminal's context that tries each request twice. */
const context = () =>
  capturedContext({ retry: defaultRetryPolicy({ maxAttempts: 2, sleep: async () => {} }) });

function prepared(deployId: string, buckets: string[][]): PreparedDeploy {
  return {
    deployId,
    buckets,
    uploadJwt: `upload-${deployId}`,
    urls: { upload: standIn.url, production: "http://p.localhost", revision: "http://r.localhost" },
  } as PreparedDeploy;
}

/** `prepareAgain` answering the given prepares in turn, counting its calls. */
function prepares(...answers: PreparedDeploy[]) {
  const state = { calls: 0 };
  const again = async () => {
    state.calls++;
    return answers.shift()!;
  };
  return { state, again };
}

describe("uploadAll", () => {
  it("uploadAll: nothing to upload completes with the prepare's own token, sending nothing", async () => {
    const { ctx } = context();
    for (const buckets of [[], [[], []]]) {
      const outcome = await uploadAll(ctx, prepared("d1", buckets), standIn.files, prepares().again);
      expect(outcome).toEqual({ deployId: "d1", completionJwt: "upload-d1", uploadedHashes: new Set() });
    }
    expect(standIn.received).toBe(0);
  });

  it("uploadAll: the service's completion token completes the deploy; the line counts files and bytes", async () => {
    const { ctx, stderr } = context();
    const [a, b] = standIn.hashes;
    standIn.answers = [ok(), ok("done")];
    const outcome = await uploadAll(ctx, prepared("d2", [[a!], [b!]]), standIn.files, prepares().again);
    expect(outcome).toEqual({ deployId: "d2", completionJwt: "done", uploadedHashes: new Set([a, b]) });
    expect(stderr()).toMatch(/Uploaded 2 files \(16 B\) in \d+ms\n$/);
    // Once the last file is sent, the line says what the server is still storing, never "the last 0".
    expect(stderr()).toContain("2/2 files · 16 B/16 B · sent; the server is storing the last 1 request… ");
    expect(stderr()).not.toContain("storing the last 0");
    expect(stderr()).not.toContain("1/2 files · 8 B/16 B · sent");
  });

  it("uploadAll: without a completion token it prepares again, and gives up after four rounds", async () => {
    const { ctx, stderr } = context();
    const [a] = standIn.hashes;
    const again = prepares(prepared("r2", [[a!]]), prepared("r3", [[a!]]), prepared("r4", [[a!]]));
    const error = await refusal(uploadAll(ctx, prepared("r1", [[a!]]), standIn.files, again.again));
    expect(error).toBeInstanceOf(CliError);
    expect(error.code).toBe("UPLOAD_INCOMPLETE");
    expect(error.message).toBe(
      `the upload service at ${standIn.url} did not confirm the upload after 4 rounds`,
    );
    expect(error.hint).toBe("Run deploy again; only what is still missing will be uploaded.");
    expect(again.state.calls).toBe(3);
    expect(standIn.received).toBe(4);
    expect(
      stderr().match(/The upload service issued no completion token; preparing again\.\n/g),
    ).toHaveLength(4);
  });

  it("uploadAll: a refused upload token ends the round and the next prepare uploads what is missing", async () => {
    const { ctx, stderr } = context();
    const [a, b] = standIn.hashes;
    standIn.answers = [ok(), { status: 401, body: "{}" }, ok("done")];
    const again = prepares(prepared("second", [[b!]]));
    const outcome = await uploadAll(ctx, prepared("first", [[a!], [b!]]), standIn.files, again.again);
    expect(outcome).toEqual({ deployId: "second", completionJwt: "done", uploadedHashes: new Set([a, b]) });
    expect(again.state.calls).toBe(1);
    expect(stderr()).toContain(
      `the upload service at ${standIn.url} refused the upload token (expired); preparing the deploy again to upload what is still missing.\n`,
    );
  });

  it("uploadAll: any other refusal ends with 'Upload failed.' and is thrown, not prepared again", async () => {
    const { ctx, stderr } = context();
    standIn.answers = [{ status: 400, body: "{}" }];
    const again = prepares();
    const error = await refusal(
      uploadAll(ctx, prepared("x", [[standIn.hashes[0]!]]), standIn.files, again.again),
    );
    expect(error.code).toBe("HTTP_400");
    expect(again.state.calls).toBe(0);
    expect(stderr().endsWith("\r\x1b[2KUpload failed.\n")).toBe(true);
  });
  it("uploadAll: an empty bucket beside others does not end the round: the others are uploaded", async () => {
    const { ctx } = context();
    const [a] = standIn.hashes;
    standIn.answers = [ok("done")];
    const outcome = await uploadAll(ctx, prepared("mixed", [[a!], []]), standIn.files, prepares().again);
    expect(outcome.completionJwt).toBe("done");
    expect(outcome.uploadedHashes).toEqual(new Set([a]));
  });

  it("uploadAll: a hash no file has is BAD_BUCKET, not a crash", async () => {
    const { ctx } = context();
    const error = await refusal(
      uploadAll(ctx, prepared("odd", [["9".repeat(32)]]), standIn.files, prepares().again),
    );
    expect(error).toBeInstanceOf(CliError);
    expect(error.code).toBe("BAD_BUCKET");
  });
});
