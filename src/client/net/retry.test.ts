import { describe, expect, it } from "vitest";
import { ApiError, CliError, NetworkError } from "../errors.js";
import {
  defaultRetryPolicy,
  isRetryable,
  isRetryableUnsent,
  parseRetryAfter,
  retryDelayMs,
  withRetry,
} from "./retry.js";

const api = (status: number, retryAfterMs?: number) =>
  new ApiError("do it", "http://x/", status, `HTTP_${status}`, "m", undefined, retryAfterMs);

describe("retry policy", () => {
  it("isRetryable: network errors, 5xx, 429 and 408, never other 4xx", () => {
    expect(isRetryable(new NetworkError("do it", "http://x/", "ECONNRESET", "reset"))).toBe(true);
    expect(isRetryable(api(500))).toBe(true);
    expect(isRetryable(api(503))).toBe(true);
    expect(isRetryable(api(429))).toBe(true);
    expect(isRetryable(api(408))).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 410, 413, 422])
      expect(isRetryable(api(status))).toBe(false);
    // 507: the server is short of storage; trying again soon sends the same bytes for nothing.
    expect(isRetryable(api(507))).toBe(false);
    expect(isRetryable(new CliError("X", "local"))).toBe(false);
    expect(isRetryable(new Error("bug"))).toBe(false);
  });

  it("isRetryableUnsent: only a refused connection, 429 and 408, where the server surely did nothing", () => {
    expect(isRetryableUnsent(new NetworkError("do it", "http://x/", "ECONNREFUSED", "refused"))).toBe(true);
    expect(isRetryableUnsent(api(429))).toBe(true);
    expect(isRetryableUnsent(api(408))).toBe(true);
    for (const code of ["ECONNRESET", "ETIMEDOUT", "EPIPE"])
      expect(isRetryableUnsent(new NetworkError("do it", "http://x/", code, "lost"))).toBe(false);
    for (const status of [500, 502, 503, 504, 400]) expect(isRetryableUnsent(api(status))).toBe(false);
  });

  it("retryDelayMs: doubles up to the ceiling, jittered within its upper half", () => {
    const low = defaultRetryPolicy({ baseMs: 100, maxMs: 1000, random: () => 0 });
    const high = defaultRetryPolicy({ baseMs: 100, maxMs: 1000, random: () => 1 });
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, low, api(503)))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, high, api(503)))).toEqual([100, 200, 400, 800, 1000]);
  });

  it("retryDelayMs: honours Retry-After, capped", () => {
    const policy = defaultRetryPolicy({ maxRetryAfterMs: 10_000 });
    expect(retryDelayMs(1, policy, api(429, 3000))).toBe(3000);
    expect(retryDelayMs(1, policy, api(429, 60_000))).toBe(10_000);
  });

  it("parseRetryAfter: seconds or an HTTP date", () => {
    expect(parseRetryAfter("7")).toBe(7000);
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(parseRetryAfter("Tue, 01 Jan 2030 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
  });

  it("withRetry: retries a passing failure, then succeeds", async () => {
    const waits: number[] = [];
    const policy = defaultRetryPolicy({
      baseMs: 10,
      random: () => 0.5,
      sleep: async (ms) => void waits.push(ms),
    });
    let calls = 0;
    const result = await withRetry(async () => {
      calls++;
      if (calls < 3) throw api(503);
      return "ok";
    }, policy);
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    expect(waits).toEqual([8, 15]);
  });

  it("withRetry: stops at once on a 4xx and after maxAttempts on a 5xx", async () => {
    const policy = defaultRetryPolicy({ maxAttempts: 3, sleep: async () => {} });
    let calls = 0;
    await expect(
      withRetry(async () => ((calls += 1), Promise.reject(api(404))), policy),
    ).rejects.toMatchObject({ status: 404 });
    expect(calls).toBe(1);
    calls = 0;
    const notices: number[] = [];
    await expect(
      withRetry(
        async () => ((calls += 1), Promise.reject(api(502))),
        policy,
        (n) => notices.push(n.attempt),
      ),
    ).rejects.toMatchObject({ status: 502 });
    expect(calls).toBe(3);
    expect(notices).toEqual([1, 2]);
  });
  it("parseRetryAfter: only whole seconds count as seconds, spaces around them ignored; nothing given is none", () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter(" 5 ")).toBe(5000);
    expect(parseRetryAfter("12")).toBe(12_000);
    expect(parseRetryAfter("x7")).toBeUndefined();
    expect(parseRetryAfter("7x")).toBeUndefined();
  });

  it("withRetry: a refused connection gets its own, smaller number of attempts; another network error all of them", async () => {
    const policy = defaultRetryPolicy({ maxAttempts: 5, maxRefusedAttempts: 2, sleep: async () => {} });
    const attempts = async (causeCode: string) => {
      let calls = 0;
      const error = await withRetry(async () => {
        calls++;
        throw new NetworkError("do it", "http://x/", causeCode, "d");
      }, policy).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NetworkError);
      return calls;
    };
    expect(await attempts("ECONNREFUSED")).toBe(2);
    expect(await attempts("ECONNRESET")).toBe(5);
    // The smaller of the two: a policy of fewer attempts in all is not raised by the refused one.
    const few = defaultRetryPolicy({ maxAttempts: 1, maxRefusedAttempts: 3, sleep: async () => {} });
    let calls = 0;
    await withRetry(async () => {
      calls++;
      throw new NetworkError("do it", "http://x/", "ECONNREFUSED", "d");
    }, few).catch(() => undefined);
    expect(calls).toBe(1);
  });

  it("defaultRetryPolicy: its sleep waits the time it is given", async () => {
    const started = performance.now();
    await defaultRetryPolicy().sleep(30);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
