import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./postgres-errors.js";

function withCode(code: unknown, message = "failed"): Error {
  return Object.assign(new Error(message), { code });
}

describe("isDatabaseUnavailable", () => {
  it("isDatabaseUnavailable: true for each socket error code of a server not there or gone", () => {
    for (const code of [
      "ECONNREFUSED",
      "ECONNRESET",
      "ETIMEDOUT",
      "EHOSTUNREACH",
      "ENETUNREACH",
      "ENOTFOUND",
      "EAI_AGAIN",
      "EPIPE",
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    }
  });

  it("isDatabaseUnavailable: true for SQLSTATEs of an outage, false for the statement's own errors", () => {
    for (const code of [
      "08006",
      "08001",
      "53300",
      "57P01",
      "57P02",
      "57P03",
      "57P04",
      "57014",
      "3D000",
      "28P01",
      "28000",
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    }
    for (const code of [
      "23505",
      "42P01",
      "42601",
      "57P05",
      "57015",
      "3D001",
      "0800",
      "080061",
      "x08006",
      "22012",
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
    }
  });

  it("isDatabaseUnavailable: true for pg's messages of a connection that timed out or ended, in any case", () => {
    for (const message of [
      "timeout exceeded when trying to connect",
      "Connection terminated unexpectedly",
      "Query read timeout",
      "Client has encountered a connection error and is not queryable",
      "Connection is closed.",
      "connect ECONNREFUSED 127.0.0.1:1",
      "CONNECTION TERMINATED",
    ]) {
      expect(isDatabaseUnavailable(new Error(message)), message).toBe(true);
    }
    expect(isDatabaseUnavailable(new Error('relation "x" does not exist'))).toBe(false);
  });

  it("isDatabaseUnavailable: a code that is not a string is not read as one", () => {
    expect(isDatabaseUnavailable(withCode(8006))).toBe(false);
    // As text these would read as SQLSTATEs of an outage (53300, 08006).
    expect(isDatabaseUnavailable(withCode(53300))).toBe(false);
    expect(isDatabaseUnavailable(withCode(["08006"]))).toBe(false);
    expect(isDatabaseUnavailable(withCode(["ECONNREFUSED"]))).toBe(false);
  });

  it("isDatabaseUnavailable: follows causes up to five errors deep, not further", () => {
    const chain = (depth: number): Error => {
      let error: Error = withCode("ECONNREFUSED");
      for (let i = 1; i < depth; i++) error = new Error(`wrapper ${i}`, { cause: error });
      return error;
    };
    expect(isDatabaseUnavailable(chain(1))).toBe(true);
    expect(isDatabaseUnavailable(chain(5))).toBe(true);
    expect(isDatabaseUnavailable(chain(6))).toBe(false);
  });

  it("isDatabaseUnavailable: an AggregateError is an outage when one of its parts is", () => {
    expect(
      isDatabaseUnavailable(new AggregateError([new Error("x"), withCode("ECONNREFUSED")], "all failed")),
    ).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([new Error("x"), withCode("23505")], "all failed"))).toBe(
      false,
    );
  });

  it("isDatabaseUnavailable: false for what is not an error", () => {
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable({ code: "ECONNREFUSED", message: "Connection terminated" })).toBe(false);
    expect(isDatabaseUnavailable("ECONNREFUSED")).toBe(false);
  });
});
