import { describe, expect, it } from "vitest";
import { DeployError, InvalidManifestError, RateLimitedError, ServerBusyError } from "./errors.js";

describe("domain errors", () => {
  it("errors: each carries its stable code, its default message and its class name", () => {
    const manifest = new InvalidManifestError();
    expect(manifest).toBeInstanceOf(DeployError);
    expect([manifest.code, manifest.message, manifest.name]).toEqual([
      "INVALID_MANIFEST",
      "invalid manifest",
      "InvalidManifestError",
    ]);
    expect(new InvalidManifestError("manifest has 4 assets").message).toBe("manifest has 4 assets");
  });

  it("errors: RATE_LIMITED and SERVER_BUSY say to retry later and carry the seconds to wait", () => {
    const limited = new RateLimitedError(7);
    expect([limited.code, limited.message, limited.retryAfterSeconds]).toEqual([
      "RATE_LIMITED",
      "too many requests, retry later",
      7,
    ]);
    const busy = new ServerBusyError(3);
    expect(busy.code).toBe("SERVER_BUSY");
    expect(busy.message).toMatch(/retry later$/);
    expect(busy.retryAfterSeconds).toBe(3);
  });
});
