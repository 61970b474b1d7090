import { describe, expect, it } from "vitest";
import { ClientAbortedError, isClientAbort } from "./client-abort.js";

function withCode(code: string): Error {
  return Object.assign(new Error("socket trouble"), { code });
}

describe("isClientAbort", () => {
  it("isClientAbort: true for ClientAbortedError, the peer's socket codes and node's `aborted`", () => {
    const aborted = new ClientAbortedError();
    expect(aborted.name).toBe("ClientAbortedError");
    expect(aborted.message).toBe("the client aborted the request");
    expect(isClientAbort(aborted)).toBe(true);
    for (const code of ["ECONNRESET", "ECONNABORTED", "EPIPE", "ERR_STREAM_PREMATURE_CLOSE"]) {
      expect(isClientAbort(withCode(code))).toBe(true);
    }
    expect(isClientAbort(new Error("aborted"))).toBe(true);
  });

  it("isClientAbort: false for other errors, other codes and things that are not errors", () => {
    expect(isClientAbort(new Error("disk full"))).toBe(false);
    expect(isClientAbort(withCode("ENOSPC"))).toBe(false);
    expect(isClientAbort({ code: "ECONNRESET", message: "aborted" })).toBe(false);
    expect(isClientAbort("aborted")).toBe(false);
    expect(isClientAbort(undefined)).toBe(false);
  });

  it("ClientAbortedError: keeps its cause", () => {
    const cause = new Error("reset");
    expect(new ClientAbortedError({ cause }).cause).toBe(cause);
  });
});
