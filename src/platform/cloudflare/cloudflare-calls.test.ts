import Cloudflare from "cloudflare";
import { describe, expect, it } from "vitest";
import { UploadPlatformError } from "../../core/errors.js";
import { cloudflareCall, CloudflareRefusal, type RetryBudget } from "./cloudflare-calls.js";

const NOW = Date.parse("2030-01-01T00:00:00Z");

/** A budget whose waits are recorded, not slept, against a fixed clock. */
function budget(budgetMs = 60_000): RetryBudget & { waits: number[] } {
  const waits: number[] = [];
  return {
    budgetMs,
    waits,
    now: () => NOW,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}

/** The SDK's error for a reply of `status` with Cloudflare's envelope of `errors`. */
function apiError(
  status: number | undefined,
  errors?: { code?: unknown; message?: string }[],
  headers?: Record<string, string>,
): InstanceType<typeof Cloudflare.APIError> {
  return new Cloudflare.APIError(status, errors === undefined ? undefined : { errors }, "failed", headers);
}

/** Work that throws each of `errors` in turn, then answers "done"; `calls` counts its tries. */
function failing(...errors: unknown[]): { calls: number; work: () => Promise<string> } {
  const state = {
    calls: 0,
    work: async () => {
      const error = errors[state.calls];
      state.calls += 1;
      if (error !== undefined) throw error;
      return "done";
    },
  };
  return state;
}

/** Work that always throws `error`. */
function alwaysFailing(error: unknown): { calls: number; work: () => Promise<string> } {
  const state = {
    calls: 0,
    work: async (): Promise<string> => {
      state.calls += 1;
      throw error;
    },
  };
  return state;
}

describe("cloudflareCall", () => {
  it("cloudflareCall: a call that succeeds answers its value at once, without waiting", async () => {
    const b = budget();
    const call = failing();
    expect(await cloudflareCall("reading", b, call.work)).toBe("done");
    expect([call.calls, b.waits]).toEqual([1, []]);
  });

  it("cloudflareCall: an error that is not Cloudflare's is thrown as it is, never retried", async () => {
    const b = budget();
    const error = new TypeError("bad");
    const call = alwaysFailing(error);
    await expect(cloudflareCall("reading", b, call.work)).rejects.toBe(error);
    expect([call.calls, b.waits]).toEqual([1, []]);
  });

  it("cloudflareCall: 401 and 403 are UPLOAD_PLATFORM_ERROR naming the step, Cloudflare's status and code and the setting to check, never retried", async () => {
    for (const status of [401, 403]) {
      const b = budget();
      const error = apiError(status, [{ code: 9109, message: "Invalid access token" }]);
      const call = alwaysFailing(error);
      const thrown = await cloudflareCall("verifying the API token", b, call.work).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(UploadPlatformError);
      expect((thrown as Error).message).toBe(
        `Cloudflare refused the API token on verifying the API token (HTTP ${status}, code 9109: Invalid access token); check CLOUDFLARE_API_TOKEN and its permissions (docs/cloudflare.md)`,
      );
      expect((thrown as Error).cause).toBe(error);
      expect([call.calls, b.waits]).toEqual([1, []]);
    }
  });

  it("cloudflareCall: another 4xx is a CloudflareRefusal with the status, Cloudflare's code and its message, never retried", async () => {
    for (const status of [400, 404, 409, 499]) {
      const b = budget();
      const call = alwaysFailing(apiError(status, [{ code: 10007, message: "not found" }]));
      const thrown = await cloudflareCall("reading", b, call.work).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(CloudflareRefusal);
      const refusal = thrown as CloudflareRefusal;
      expect([refusal.status, refusal.code, refusal.message]).toEqual([
        status,
        10007,
        `HTTP ${status}, code 10007: not found`,
      ]);
      expect([call.calls, b.waits]).toEqual([1, []]);
    }
  });

  it("cloudflareCall: a refusal without Cloudflare's envelope has no code and says only the status", async () => {
    const thrown = await cloudflareCall("reading", budget(), alwaysFailing(apiError(404)).work).catch(
      (e: unknown) => e,
    );
    expect([(thrown as CloudflareRefusal).code, (thrown as CloudflareRefusal).message]).toEqual([
      undefined,
      "HTTP 404",
    ]);
  });

  it("cloudflareCall: a code that is not a number is left out, the message kept", async () => {
    const error = apiError(404, [{ code: "7003", message: "gone" }]);
    const thrown = (await cloudflareCall("reading", budget(), alwaysFailing(error).work).catch(
      (e: unknown) => e,
    )) as CloudflareRefusal;
    expect([thrown.code, thrown.message]).toEqual([undefined, "HTTP 404: gone"]);
  });

  it("cloudflareCall: a code without a message is kept, with no detail after it", async () => {
    const error = apiError(404, [{ code: 7003 }]);
    const thrown = (await cloudflareCall("reading", budget(), alwaysFailing(error).work).catch(
      (e: unknown) => e,
    )) as CloudflareRefusal;
    expect([thrown.code, thrown.message]).toEqual([7003, "HTTP 404, code 7003"]);
  });

  it("cloudflareCall: 429, 5xx and a failure without a status are retried with doubling backoff, then answer", async () => {
    for (const status of [429, 500, 503, undefined]) {
      const b = budget();
      const call = failing(apiError(status), apiError(status), apiError(status));
      expect(await cloudflareCall("reading", b, call.work)).toBe("done");
      expect([call.calls, b.waits]).toEqual([4, [250, 500, 1000]]);
    }
  });

  it("cloudflareCall: five tries at most, whatever the budget, then UPLOAD_PLATFORM_ERROR with Cloudflare's status and code", async () => {
    const b = budget(Number.MAX_SAFE_INTEGER);
    const error = apiError(500, [{ code: 10013, message: "internal" }]);
    const call = alwaysFailing(error);
    const thrown = await cloudflareCall("uploading script s1", b, call.work).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(UploadPlatformError);
    expect((thrown as Error).message).toBe(
      "Cloudflare failed on uploading script s1 (HTTP 500, code 10013: internal); try again later",
    );
    expect((thrown as Error).cause).toBe(error);
    expect([call.calls, b.waits]).toEqual([5, [250, 500, 1000, 2000]]);
  });

  it("cloudflareCall: a failure without a status says so in the message", async () => {
    const thrown = await cloudflareCall("reading", budget(0), alwaysFailing(apiError(undefined)).work).catch(
      (e: unknown) => e,
    );
    expect((thrown as Error).message).toBe("Cloudflare failed on reading (HTTP error); try again later");
  });

  it("cloudflareCall: the waits never go past the budget: a wait that would is not taken", async () => {
    // 250 + 500 is exactly 750: both are taken; the next 1000 would pass it.
    const exact = budget(750);
    const call = alwaysFailing(apiError(503));
    await expect(cloudflareCall("reading", exact, call.work)).rejects.toBeInstanceOf(UploadPlatformError);
    expect([call.calls, exact.waits]).toEqual([3, [250, 500]]);

    const short = budget(749);
    const again = alwaysFailing(apiError(503));
    await expect(cloudflareCall("reading", short, again.work)).rejects.toBeInstanceOf(UploadPlatformError);
    expect([again.calls, short.waits]).toEqual([2, [250]]);
  });

  it("cloudflareCall: Retry-After in seconds is the wait, instead of the backoff", async () => {
    const b = budget();
    const call = failing(
      apiError(429, [], { "retry-after": "3" }),
      apiError(429, [], { "retry-after": "0" }),
    );
    expect(await cloudflareCall("reading", b, call.work)).toBe("done");
    expect(b.waits).toEqual([3000, 0]);
  });

  it("cloudflareCall: a negative Retry-After waits nothing", async () => {
    const b = budget();
    const call = failing(apiError(429, [], { "retry-after": "-5" }));
    expect(await cloudflareCall("reading", b, call.work)).toBe("done");
    expect(b.waits).toEqual([0]);
  });

  it("cloudflareCall: Retry-After as a date waits until then, measured against the budget's clock", async () => {
    const b = budget();
    const call = failing(
      apiError(503, [], { "retry-after": new Date(NOW + 5_000).toUTCString() }),
      apiError(503, [], { "retry-after": new Date(NOW - 5_000).toUTCString() }),
    );
    expect(await cloudflareCall("reading", b, call.work)).toBe("done");
    expect(b.waits).toEqual([5000, 0]);
  });

  it("cloudflareCall: a Retry-After that is neither seconds nor a date falls back to the backoff", async () => {
    const b = budget();
    const call = failing(apiError(429, [], { "retry-after": "soon" }), apiError(429, [], { other: "1" }));
    expect(await cloudflareCall("reading", b, call.work)).toBe("done");
    expect(b.waits).toEqual([250, 500]);
  });

  it("cloudflareCall: a Retry-After longer than the budget is not waited for", async () => {
    const b = budget(2_000);
    const call = alwaysFailing(apiError(429, [], { "retry-after": "3" }));
    await expect(cloudflareCall("reading", b, call.work)).rejects.toBeInstanceOf(UploadPlatformError);
    expect([call.calls, b.waits]).toEqual([1, []]);
  });
});
