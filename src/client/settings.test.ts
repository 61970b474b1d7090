import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { UsageError } from "./errors.js";
import { checkApiUrl, DEFAULT_API_URL, DEFAULTS, readSettings, resolveApiUrl } from "./settings.js";

function usageMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error("no usage error");
}

describe("settings", () => {
  it("readSettings: the defaults when nothing is set or a variable is empty", () => {
    const expected = {
      maxFiles: DEFAULTS.maxFiles,
      maxFileBytes: DEFAULTS.maxFileBytes,
      uploadConcurrency: DEFAULTS.uploadConcurrency,
      hashThreads: Math.min(availableParallelism(), DEFAULTS.maxHashThreads),
      hashThreadMinFiles: DEFAULTS.hashThreadMinFiles,
      retryBaseMs: DEFAULTS.retryBaseMs,
      maxAttempts: DEFAULTS.maxAttempts,
      lockWaitSeconds: DEFAULTS.lockWaitSeconds,
    };
    expect(readSettings({})).toEqual(expected);
    expect(readSettings({ DEPLOY_MAX_FILES: "", DEPLOY_RETRY_BASE_MS: "" })).toEqual(expected);
  });

  it("readSettings: each variable sets its own setting", () => {
    expect(
      readSettings({
        DEPLOY_MAX_FILES: "7",
        DEPLOY_MAX_FILE_BYTES: "0",
        DEPLOY_UPLOAD_CONCURRENCY: "2",
        DEPLOY_HASH_THREADS: "0",
        DEPLOY_HASH_THREAD_MIN_FILES: "5",
        DEPLOY_RETRY_BASE_MS: "0",
        DEPLOY_MAX_ATTEMPTS: "1",
        DEPLOY_LOCK_WAIT_SECONDS: "0",
      }),
    ).toEqual({
      maxFiles: 7,
      maxFileBytes: 0,
      uploadConcurrency: 2,
      hashThreads: 0,
      hashThreadMinFiles: 5,
      retryBaseMs: 0,
      maxAttempts: 1,
      lockWaitSeconds: 0,
    });
  });

  it("readSettings: a value below its minimum, a fraction or text is a usage error naming the variable and the minimum", () => {
    expect(usageMessage(() => readSettings({ DEPLOY_MAX_FILES: "0" }))).toBe(
      'DEPLOY_MAX_FILES="0" must be an integer of at least 1',
    );
    expect(usageMessage(() => readSettings({ DEPLOY_MAX_FILE_BYTES: "-1" }))).toBe(
      'DEPLOY_MAX_FILE_BYTES="-1" must be an integer of at least 0',
    );
    expect(usageMessage(() => readSettings({ DEPLOY_UPLOAD_CONCURRENCY: "0" }))).toContain("at least 1");
    expect(usageMessage(() => readSettings({ DEPLOY_MAX_ATTEMPTS: "0" }))).toContain("at least 1");
    expect(usageMessage(() => readSettings({ DEPLOY_HASH_THREADS: "-1" }))).toContain("DEPLOY_HASH_THREADS");
    expect(usageMessage(() => readSettings({ DEPLOY_HASH_THREAD_MIN_FILES: "-1" }))).toContain("at least 0");
    expect(usageMessage(() => readSettings({ DEPLOY_RETRY_BASE_MS: "-1" }))).toContain("at least 0");
    expect(usageMessage(() => readSettings({ DEPLOY_LOCK_WAIT_SECONDS: "-1" }))).toContain("at least 0");
    expect(usageMessage(() => readSettings({ DEPLOY_RETRY_BASE_MS: "1.5" }))).toContain(
      "DEPLOY_RETRY_BASE_MS",
    );
    expect(usageMessage(() => readSettings({ DEPLOY_MAX_FILES: "many" }))).toContain("DEPLOY_MAX_FILES");
    expect(usageMessage(() => readSettings({ DEPLOY_MAX_FILES: "1e20" }))).toContain("DEPLOY_MAX_FILES");
  });

  it("resolveApiUrl: the flag first, then DEPLOY_API_URL without its trailing slashes, then the default", () => {
    expect(resolveApiUrl("http://flag.example", { DEPLOY_API_URL: "http://env.example" })).toBe(
      "http://flag.example",
    );
    expect(resolveApiUrl(undefined, { DEPLOY_API_URL: "https://env.example//" })).toBe("https://env.example");
    expect(resolveApiUrl(undefined, { DEPLOY_API_URL: "" })).toBe(DEFAULT_API_URL);
    expect(resolveApiUrl(undefined, {})).toBe("http://127.0.0.1:8787");
    expect(usageMessage(() => resolveApiUrl(undefined, { DEPLOY_API_URL: "nope" }))).toBe(
      'DEPLOY_API_URL "nope" is not a URL',
    );
  });

  it("checkApiUrl: only http and https URLs, named by their source", () => {
    expect(checkApiUrl("http://127.0.0.1:8787/", "--api-url")).toBe("http://127.0.0.1:8787");
    expect(checkApiUrl("https://deploy.example/api/", "--api-url")).toBe("https://deploy.example/api");
    let hint: string | undefined;
    try {
      checkApiUrl("127.0.0.1", "--api-url");
    } catch (error) {
      hint = (error as UsageError).hint;
    }
    expect(hint).toBe("Example: --api-url http://127.0.0.1:8787");
    expect(usageMessage(() => checkApiUrl("ftp://deploy.example", "--api-url"))).toBe(
      '--api-url "ftp://deploy.example" must start with http:// or https://',
    );
  });
});
