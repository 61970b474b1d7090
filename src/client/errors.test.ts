import { describe, expect, it } from "vitest";
import { ApiError, CliError, NetworkError, systemErrorCode, UsageError } from "./errors.js";

describe("errors", () => {
  it("CliError: code, message, hint, exit status 1 and its class's name; UsageError exits 2 with USAGE", () => {
    const error = new CliError("LOCKED", "busy", "wait");
    expect([error.code, error.message, error.hint, error.exitCode, error.name]).toEqual([
      "LOCKED",
      "busy",
      "wait",
      1,
      "CliError",
    ]);
    const usage = new UsageError("unknown option --prod", "production is the default");
    expect([usage.code, usage.exitCode, usage.name, usage.hint]).toEqual([
      "USAGE",
      2,
      "UsageError",
      "production is the default",
    ]);
  });

  it("ApiError: the project's fate in words for the codes whose server message is terse", () => {
    const words = (code: string) =>
      new ApiError("read the project", "http://a/x", 401, code, "terse").message;
    expect(words("UNAUTHORIZED")).toBe(
      "could not read the project: the server does not know this project's token (the project was deleted, or it lives on another server)",
    );
    expect(words("PROJECT_NOT_FOUND")).toBe(
      "could not read the project: the project no longer exists on the server",
    );
    expect(words("PROJECT_EXPIRED")).toBe("could not read the project: the project has expired");
    expect(words("OTHER")).toBe("could not read the project: terse");
  });

  it("ApiError: an empty server message says the status; the detail keeps URL, status, code and message", () => {
    const error = new ApiError("promote the revision", "http://a/p", 502, "HTTP_502", "  ", "hint", 3000);
    expect(error.message).toBe("could not promote the revision: the server answered with status 502");
    expect(error.detail).toBe("http://a/p answered 502 HTTP_502:   ");
    expect([error.name, error.hint, error.retryAfterMs, error.exitCode]).toEqual([
      "ApiError",
      "hint",
      3000,
      1,
    ]);
  });

  it("NetworkError: a refused or unknown host points at the URL; anything else at the network", () => {
    const refused = new NetworkError("read", "http://a/x", "ECONNREFUSED", "refused");
    expect([refused.code, refused.message]).toEqual([
      "NETWORK",
      "could not read: no answer from http://a/x (refused)",
    ]);
    expect(refused.hint).toBe(
      "Check --api-url (or DEPLOY_API_URL), and that the server is running (`npm start`).",
    );
    expect(new NetworkError("read", "u", "ENOTFOUND", "d").hint).toBe(refused.hint);
    expect(new NetworkError("read", "u", "ECONNRESET", "d").hint).toBe(
      "Check your network and run the command again.",
    );
  });

  it("systemErrorCode: the first string code on the error or its causes, up to five deep", () => {
    const coded = (code: unknown, cause?: unknown) => Object.assign(new Error("x", { cause }), { code });
    expect(systemErrorCode(coded("ECONNRESET"))).toBe("ECONNRESET");
    expect(systemErrorCode(coded(7, coded(undefined, coded("EPIPE"))))).toBe("EPIPE");
    const deep = (levels: number): unknown =>
      levels === 0 ? coded("DEEP") : coded(undefined, deep(levels - 1));
    expect(systemErrorCode(deep(4))).toBe("DEEP");
    expect(systemErrorCode(deep(5))).toBeUndefined();
    expect(systemErrorCode({ code: "ENOENT" })).toBeUndefined();
    expect(systemErrorCode(undefined)).toBeUndefined();
  });
});
