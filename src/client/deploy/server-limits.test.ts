import { describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import type { ServerLimits } from "../net/api-types.js";
import { checkQuotas } from "./server-limits.js";

const KIB = 1024;
const limits = (projectQuotaBytes: number, pendingQuotaBytes: number): ServerLimits => ({
  maxFiles: 100,
  maxFileBytes: 1000 * KIB,
  maxRequestBytes: 1000 * KIB,
  projectQuotaBytes,
  pendingQuotaBytes,
  projectTtlSeconds: 0,
  deployTtlSeconds: 60,
  maxManifestBytes: 16 * 1024 * KIB,
  maxPathBytes: 1024,
  clientQuotaBytes: 0,
  platform: "built-in",
});

function refusal(run: () => void): CliError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error("not refused");
}

describe("checkQuotas", () => {
  it("checkQuotas: content up to the project quota passes; one byte over is QUOTA_EXCEEDED naming both sizes", () => {
    checkQuotas(limits(10 * KIB, 0), 10 * KIB, false);
    const error = refusal(() => checkQuotas(limits(10 * KIB, 0), 10 * KIB + 1, false));
    expect(error.code).toBe("QUOTA_EXCEEDED");
    expect(error.message).toBe(
      "the site's content is 10.0 KiB; on this server at most 10.0 KiB a project may keep",
    );
    expect(error.hint).toBe(
      "Leave large files out with .deployignore, or ask the server's operator for a larger quota.",
    );
  });

  it("checkQuotas: the pending quota binds only a new project, which must send everything", () => {
    checkQuotas(limits(0, 4 * KIB), 8 * KIB, false);
    checkQuotas(limits(0, 4 * KIB), 4 * KIB, true);
    const error = refusal(() => checkQuotas(limits(0, 4 * KIB), 8 * KIB, true));
    expect(error.message).toBe(
      "the site's content is 8.0 KiB; on this server at most 4.0 KiB may wait to be uploaded at once",
    );
  });

  it("checkQuotas: over both, the project quota is the one named", () => {
    const error = refusal(() => checkQuotas(limits(2 * KIB, 4 * KIB), 8 * KIB, true));
    expect(error.message).toContain("at most 2.0 KiB a project may keep");
  });

  it("checkQuotas: a quota of 0 is off, and a server without limits refuses nothing", () => {
    checkQuotas(limits(0, 0), 1024 * 1024 * KIB, true);
    checkQuotas(undefined, 1024 * 1024 * KIB, true);
  });
});
