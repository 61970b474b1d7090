import { describe, expect, it } from "vitest";
import { normalizeHost } from "./published-sites.js";

describe("normalizeHost", () => {
  it("normalizeHost: trims and lowercases", () => {
    expect(normalizeHost("  WWW.Example.COM \t")).toBe("www.example.com");
  });

  it("normalizeHost: an IPv6 literal keeps its colons; only a port after its ] goes", () => {
    expect(normalizeHost("[::1]")).toBe("[::1]");
    expect(normalizeHost("[::1]:8080")).toBe("[::1]");
    expect(normalizeHost("[2001:DB8::1]")).toBe("[2001:db8::1]");
    // Without its ], taken as it is: no port can be told from the address.
    expect(normalizeHost("[::1")).toBe("[::1");
  });

  it("normalizeHost: only a leading [ makes an IPv6 literal: elsewhere, what follows the last colon goes", () => {
    expect(normalizeHost("a.test:8[")).toBe("a.test");
  });
});
