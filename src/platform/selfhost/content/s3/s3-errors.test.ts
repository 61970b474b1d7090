import { S3ServiceException } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { ObjectStoreUnavailableError } from "../../../../core/errors.js";
import { PackDamagedError, PackMissingError } from "../pack-storage.js";
import { storeError } from "./s3-errors.js";

/** An error as the S3 client throws it for an answer of `status`. */
function s3(name: string, status?: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: "client",
    $metadata: status === undefined ? {} : { httpStatusCode: status },
    message: `${name} message`,
  });
}

/** The message of the cause `storeError` gives for the log. */
function logged(error: Error): string {
  expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
  const cause = error.cause as Error;
  expect(cause.message).not.toBe("");
  return cause.message;
}

describe("storeError", () => {
  it("storeError: NoSuchKey, or a 404 that is not NoSuchBucket, is a missing pack naming the request", () => {
    for (const error of [s3("NoSuchKey", 404), s3("NoSuchKey"), s3("NotFound", 404)]) {
      const mapped = storeError("GET pack p1", error);
      expect(mapped).toBeInstanceOf(PackMissingError);
      expect(mapped.message).toBe("GET pack p1: no such object");
    }
  });

  it("storeError: NoSuchBucket (a 404 too) is the store unavailable, not a missing pack", () => {
    const mapped = storeError("GET pack p1", s3("NoSuchBucket", 404));
    expect(logged(mapped)).toBe("GET pack p1: NoSuchBucket (404)");
  });

  it("storeError: InvalidRange or a 416 is a damaged pack naming the request", () => {
    for (const error of [s3("InvalidRange"), s3("RequestedRangeNotSatisfiable", 416)]) {
      const mapped = storeError("GET pack p1", error);
      expect(mapped).toBeInstanceOf(PackDamagedError);
      expect(mapped.message).toBe("GET pack p1: the object is shorter than its row says");
    }
  });

  it("storeError: a damaged pack found by the caller is given back as it is", () => {
    const damaged = new PackDamagedError("short");
    expect(storeError("GET pack p1", damaged)).toBe(damaged);
  });

  it("storeError: any other failure is the store unavailable (503), what failed kept in its cause for the log", () => {
    const slow = s3("SlowDown", 503);
    const mapped = storeError("PUT pack p1", slow);
    expect(logged(mapped)).toBe("PUT pack p1: SlowDown (503)");
    expect((mapped.cause as Error).cause).toBe(slow);
    expect(mapped.message).toBe(new ObjectStoreUnavailableError().message);
    expect(logged(storeError("PUT pack p1", s3("InternalError")))).toBe(
      "PUT pack p1: InternalError (no status)",
    );
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(logged(storeError("PUT pack p1", refused))).toBe("PUT pack p1: ECONNREFUSED");
    expect(logged(storeError("PUT pack p1", new TypeError("bad")))).toBe("PUT pack p1: TypeError");
    expect(logged(storeError("PUT pack p1", "a string"))).toBe("PUT pack p1: a string");
  });
});
