import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DeployError, RateLimitedError, ServerBusyError } from "../../core/errors.js";
import { BodyBudget, boundedBody } from "./body-budget.js";

describe("BodyBudget", () => {
  it("BodyBudget.take: an address's share and the total are filled exactly, one byte more is refused", () => {
    const budget = new BodyBudget({ maxBytes: 10, maxBytesPerAddress: 6 });
    budget.take("a", 4);
    budget.take("a", 2); // 6 of a's 6
    expect(() => budget.take("a", 1)).toThrow(RateLimitedError);
    budget.take("b", 4); // 10 of 10
    expect(() => budget.take("c", 1)).toThrow(ServerBusyError);
    expect(budget.inFlight).toBe(10);
  });

  it("BodyBudget.take: 429 with Retry-After 5 over an address's share, 503 with it over the total, nothing taken", () => {
    const budget = new BodyBudget({ maxBytes: 10, maxBytesPerAddress: 6 });
    budget.take("a", 5);
    const limited = catchError(() => budget.take("a", 2));
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect((limited as RateLimitedError).retryAfterSeconds).toBe(5);
    budget.take("b", 5);
    const busy = catchError(() => budget.take("c", 1));
    expect(busy).toBeInstanceOf(ServerBusyError);
    expect((busy as ServerBusyError).retryAfterSeconds).toBe(5);
    // Neither refusal took anything: a's 1 more byte and c's first still fit once b is back.
    expect(budget.inFlight).toBe(10);
    budget.give("b", 5);
    budget.take("a", 1);
    budget.take("c", 1);
    expect(budget.inFlight).toBe(7);
  });

  it("BodyBudget.take: a request alone, for its address or at all, is let in whatever its size", () => {
    const total = new BodyBudget({ maxBytes: 10, maxBytesPerAddress: 6 });
    total.take("a", 100); // nothing in flight at all
    expect(() => total.take("b", 1)).toThrow(ServerBusyError);
    const share = new BodyBudget({ maxBytes: 100, maxBytesPerAddress: 6 });
    share.take("a", 4);
    share.take("b", 8); // nothing in flight for b, though over its share
    expect(() => share.take("b", 1)).toThrow(RateLimitedError);
    expect(share.inFlight).toBe(12);
  });

  it("BodyBudget.take: what a request already holds does not count against it, what others hold does", () => {
    const budget = new BodyBudget({ maxBytes: 10, maxBytesPerAddress: 6 });
    budget.take("a", 4);
    budget.take("a", 4, 4); // the same request, alone for a: 8, over the share of 6
    budget.take("b", 1); // nothing in flight for b
    expect(() => budget.take("b", 2, 0)).toThrow(ServerBusyError); // a new request of b: 9 + 2
    expect(() => budget.take("a", 1, 0)).toThrow(RateLimitedError); // a new request of a: 8 + 1
    expect(() => budget.take("a", 2, 8)).toThrow(ServerBusyError); // a's request, b's byte in flight
    expect(budget.inFlight).toBe(9);
  });

  it("BodyBudget.judge: refuses as take would and takes nothing", () => {
    const budget = new BodyBudget({ maxBytes: 10, maxBytesPerAddress: 6 });
    budget.take("a", 5);
    expect(() => budget.judge("a", 2)).toThrow(RateLimitedError);
    expect(() => budget.judge("b", 6)).toThrow(ServerBusyError);
    budget.judge("b", 5);
    expect(budget.inFlight).toBe(5);
  });

  it("BodyBudget: limits of 0 are no limit", () => {
    const budget = new BodyBudget({ maxBytes: 0, maxBytesPerAddress: 0 });
    for (let i = 0; i < 3; i++) budget.take("a", 1_000_000);
    budget.take("b", 1_000_000);
    expect(budget.inFlight).toBe(4_000_000);
  });

  it("BodyBudget.give: gives back what was taken, for the address and in all", () => {
    const budget = new BodyBudget({ maxBytes: 100, maxBytesPerAddress: 6 });
    budget.take("a", 4);
    budget.take("a", 2);
    budget.give("a", 2);
    budget.take("a", 2); // a holds 6 again, not 8
    expect(() => budget.take("a", 1)).toThrow(RateLimitedError);
    budget.give("a", 6);
    budget.give("a", 0);
    expect(budget.inFlight).toBe(0);
    // a has nothing in flight: let in alone, however much.
    budget.take("a", 50);
    expect(budget.inFlight).toBe(50);
  });
});

describe("boundedBody", () => {
  const MAX = 10;

  /**
   * An app behind boundedBody(MAX) whose route reads the body and answers its length and the
   * bytes in flight while it read; a refusal answers its status and code.
   */
  function app(budget: BodyBudget): Hono {
    const hono = new Hono();
    hono.use(boundedBody({ maxBodyBytes: MAX, budget, clientAddress: () => "127.0.0.1" }));
    hono.post("/read", async (c) => {
      const text = await c.req.text();
      return c.json({ length: text.length, inFlight: budget.inFlight });
    });
    hono.onError((error, c) =>
      error instanceof DeployError
        ? c.json({ code: error.code, message: error.message }, 413)
        : c.json({ code: "OTHER", message: String(error) }, 500),
    );
    return hono;
  }

  /** A POST of `chunks` as a stream: no Content-Length, as a chunked request arrives. */
  const chunked = (chunks: string[]): RequestInit =>
    ({
      method: "POST",
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
          controller.close();
        },
      }),
      duplex: "half",
    }) as RequestInit;

  it("boundedBody: a chunked body of exactly maxBodyBytes is read whole, its bytes held while read and given back after", async () => {
    const budget = new BodyBudget({ maxBytes: 0, maxBytesPerAddress: 0 });
    const response = await app(budget).request("/read", chunked(["1234", "567890"]));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ length: 10, inFlight: 10 });
    expect(budget.inFlight).toBe(0);
  });

  it("boundedBody: a chunked body past maxBodyBytes is refused 413 PAYLOAD_TOO_LARGE naming the limit, its bytes given back", async () => {
    const budget = new BodyBudget({ maxBytes: 0, maxBytesPerAddress: 0 });
    const response = await app(budget).request("/read", chunked(["1234", "567890", "1"]));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      code: "PAYLOAD_TOO_LARGE",
      message: "request body exceeds 10 bytes",
    });
    expect(budget.inFlight).toBe(0);
  });

  it("boundedBody: a declared body of exactly maxBodyBytes is read whole, counted as it arrives; one byte more declared is refused 413", async () => {
    const budget = new BodyBudget({ maxBytes: 0, maxBytesPerAddress: 0 });
    const exact = await app(budget).request("/read", {
      method: "POST",
      body: "1234567890",
      headers: { "content-length": "10" },
    });
    expect(exact.status).toBe(200);
    expect(await exact.json()).toEqual({ length: 10, inFlight: 10 });
    expect(budget.inFlight).toBe(0);
    const over = await app(budget).request("/read", {
      method: "POST",
      body: "12345678901",
      headers: { "content-length": "11" },
    });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { code: string }).code).toBe("PAYLOAD_TOO_LARGE");
  });
});

function catchError(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
