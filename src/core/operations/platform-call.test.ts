import { describe, expect, it } from "vitest";
import { DatabaseUnavailableError, QuotaExceededError, UploadPlatformError } from "../errors.js";
import { callPlatform } from "./platform-call.js";

/** An error shaped as pg reports a server shutting down (SQLSTATE 57P01). */
function terminated(): Error {
  return Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
}

describe("callPlatform", () => {
  it("callPlatform: the platform's database going away is DATABASE_UNAVAILABLE, its cause kept", async () => {
    const cause = terminated();
    const failed = callPlatform(() => Promise.reject(cause));
    await expect(failed).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(failed).rejects.toMatchObject({ code: "DATABASE_UNAVAILABLE", cause });
  });

  it("callPlatform: any other failure is UPLOAD_PLATFORM_ERROR with a fixed message, its cause kept for the log", async () => {
    const cause = new Error("disk on fire");
    const failed = callPlatform(() => Promise.reject(cause));
    await expect(failed).rejects.toBeInstanceOf(UploadPlatformError);
    await expect(failed).rejects.toThrow("the upload platform failed; try again later");
    await expect(failed).rejects.toMatchObject({ code: "UPLOAD_PLATFORM_ERROR", cause });
  });

  it("callPlatform: a domain error passes as it is, and a result is returned", async () => {
    const quota = new QuotaExceededError("project", 1, 0, "over");
    await expect(callPlatform(() => Promise.reject(quota))).rejects.toBe(quota);
    expect(await callPlatform(() => Promise.resolve(7))).toBe(7);
  });
});
