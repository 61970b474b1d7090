import { describe, expect, it } from "vitest";
import { quoteForMessage } from "./text.js";

describe("quoteForMessage", () => {
  it("quoteForMessage: escapes control characters and quotes as JSON does", () => {
    expect(quoteForMessage('a"b\nc\u0001')).toBe('a\\"b\\nc\\u0001');
    expect(quoteForMessage("plain é")).toBe("plain é");
  });

  it("quoteForMessage: cuts to max characters with an ellipsis, keeps exactly max", () => {
    expect(quoteForMessage("x".repeat(120))).toBe("x".repeat(120));
    expect(quoteForMessage("x".repeat(121))).toBe(`${"x".repeat(120)}…`);
    expect(quoteForMessage("abcdef", 3)).toBe("abc…");
  });
});
