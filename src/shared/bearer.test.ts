import { describe, expect, it } from "vitest";
import { bearerToken } from "./bearer.js";

describe("bearerToken", () => {
  it("bearerToken: the token after `Bearer `, the scheme in any letter case", () => {
    expect(bearerToken("Bearer abc.DEF-123")).toBe("abc.DEF-123");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("BEARER abc")).toBe("abc");
  });

  it("bearerToken: undefined for a missing header, another scheme, or no token", () => {
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken("")).toBeUndefined();
    expect(bearerToken("Basic abc")).toBeUndefined();
    expect(bearerToken("Bearer ")).toBeUndefined();
    expect(bearerToken("Bearer")).toBeUndefined();
  });

  it("bearerToken: undefined when anything but one space and visible ASCII surrounds the token", () => {
    expect(bearerToken("Bearer  abc")).toBeUndefined();
    expect(bearerToken("Bearer abc def")).toBeUndefined();
    expect(bearerToken("xBearer abc")).toBeUndefined();
    expect(bearerToken("Bearer abc\n")).toBeUndefined();
    expect(bearerToken("Bearer abcé")).toBeUndefined();
  });

  it("bearerToken: a token of 4096 characters is read, one of 4097 is refused", () => {
    expect(bearerToken(`Bearer ${"a".repeat(4096)}`)).toBe("a".repeat(4096));
    expect(bearerToken(`Bearer ${"a".repeat(4097)}`)).toBeUndefined();
  });
});
