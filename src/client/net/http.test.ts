import { describe, expect, it } from "vitest";
import { headerValue } from "./http.js";

describe("http helpers", () => {
  it("headerValue: the header's value, the first when it came more than once, undefined when absent", () => {
    expect(headerValue("3")).toBe("3");
    expect(headerValue(["3", "7"])).toBe("3");
    expect(headerValue(undefined)).toBeUndefined();
  });
});
