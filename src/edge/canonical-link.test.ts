import { describe, expect, it } from "vitest";
import { canonicalLink, encodeUriPath } from "./canonical-link.js";

describe("canonical link", () => {
  it("encodeUriPath: keeps a path's own characters and escapes, encodes the rest as UTF-8", () => {
    expect(encodeUriPath("/docs/a-b_c.~!$&'()*+,;=:@/x")).toBe("/docs/a-b_c.~!$&'()*+,;=:@/x");
    expect(encodeUriPath("/a%20b%2F")).toBe("/a%20b%2F");
    expect(encodeUriPath('/a b>c<d"e')).toBe("/a%20b%3Ec%3Cd%22e");
    expect(encodeUriPath("/100%/%zz/%4")).toBe("/100%25/%25zz/%254");
    expect(encodeUriPath("/café/😀")).toBe("/caf%C3%A9/%F0%9F%98%80");
    expect(encodeUriPath("/tab\there\r\n")).toBe("/tab%09here%0D%0A");
  });

  it("canonicalLink: one link whatever the path holds", () => {
    expect(canonicalLink("https://www.example.com/", '/x>; rel="preload", <https://evil.test/')).toBe(
      '<https://www.example.com/x%3E;%20rel=%22preload%22,%20%3Chttps://evil.test/>; rel="canonical"',
    );
  });
});
