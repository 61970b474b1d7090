import { describe, expect, it } from "vitest";
import { thenNow } from "./maybe-promise.js";

describe("thenNow", () => {
  it("thenNow: a value is passed on at once, in the same turn, and its answer returned as it is", () => {
    const seen: number[] = [];
    const answer = thenNow(2, (value) => {
      seen.push(value);
      return value * 3;
    });
    expect(seen).toEqual([2]);
    expect(answer).toBe(6);
  });

  it("thenNow: a promise is passed on once it resolves, and a rejection stays a rejection", async () => {
    const seen: string[] = [];
    const answer = thenNow(Promise.resolve("a"), (value) => {
      seen.push(value);
      return `${value}b`;
    });
    expect(seen).toEqual([]);
    await expect(answer).resolves.toBe("ab");
    expect(seen).toEqual(["a"]);
    const failed = thenNow(Promise.reject(new Error("no")), () => "never");
    await expect(failed).rejects.toThrow("no");
  });
});
