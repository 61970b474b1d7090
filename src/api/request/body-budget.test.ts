import { describe, expect, it } from "vitest";
import { RateLimitedError, ServerBusyError } from "../../core/errors.js";
import { BodyBudget } from "./body-budget.js";

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

function catchError(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
