import { describe, expect, it } from "vitest";
import { InvalidSiteConfigError } from "../errors.js";
import { parseHeaders } from "./parse-headers.js";

function refusal(text: string): string {
  try {
    parseHeaders(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSiteConfigError);
    return (error as Error).message;
  }
  throw new Error("parsed without a refusal");
}

describe("parseHeaders", () => {
  it("parseHeaders: a path, then indented Name: value lines (names lowercased) and ! Name removals", () => {
    const text = [
      "# security",
      "/*",
      "  X-Frame-Options: DENY",
      "\tContent-Security-Policy: default-src 'self'; img-src *",
      "",
      "/assets/:name",
      "  Cache-Control: public, max-age=31536000, immutable",
      "  ! Content-Security-Policy",
      "  X-Note:   spaced value  ",
    ].join("\r\n");
    expect(parseHeaders(text)).toEqual([
      {
        path: "/*",
        set: [
          ["x-frame-options", "DENY"],
          ["content-security-policy", "default-src 'self'; img-src *"],
        ],
        remove: [],
        line: 2,
      },
      {
        path: "/assets/:name",
        set: [
          ["cache-control", "public, max-age=31536000, immutable"],
          ["x-note", "spaced value"],
        ],
        remove: ["content-security-policy"],
        line: 6,
      },
    ]);
  });

  it("parseHeaders: each kind of bad line is refused with file:line and what is wrong", () => {
    expect(refusal("  X-A: b")).toBe("_headers:1: a header line before any path");
    expect(refusal("/a\nX-A: b")).toBe(
      '_headers:2: "X-A: b" must be a path starting with /; header lines must be indented',
    );
    expect(refusal("/a\n  just words")).toBe(
      '_headers:2: expected "Name: value" or "! Name", got "just words"',
    );
    expect(refusal("/a\n  Bad Name: x")).toBe('_headers:2: "Bad Name" is not a header name');
    expect(refusal("/a\n  ! Two Words")).toBe('_headers:2: "Two Words" is not a header name');
    expect(refusal("/a\n  X-Empty:")).toBe('_headers:2: "x-empty" has no value');
    expect(refusal("/a\n  X-Bad: a\u0001b")).toBe(
      '_headers:2: the value of "x-bad" holds a character a header cannot carry',
    );
    expect(refusal("/a\n  X-Wide: \u20ac")).toBe(
      '_headers:2: the value of "x-wide" holds a character a header cannot carry',
    );
    expect(refusal("/a\n  Content-Length: 3")).toBe(
      "_headers:2: Content-Length is set by the edge itself; _headers cannot change it",
    );
    expect(refusal("/a\n  ! ETag")).toBe(
      "_headers:2: ETag is set by the edge itself; _headers cannot change it",
    );
    expect(refusal("/a\n\n/b\n  X-A: b")).toBe(
      '_headers:1: no header lines under "/a" (indent them below the path)',
    );
    expect(refusal("/a\n  X-A: b\n/b")).toBe(
      '_headers:3: no header lines under "/b" (indent them below the path)',
    );
    expect(refusal("/a/*/*\n  X-A: b")).toBe(
      '_headers:1: "/a/*/*" has 2 splats (*); a pattern may have one; header lines must be indented',
    );
    expect(refusal(`/a\n  X-Long: ${"v".repeat(2_000)}`)).toBe(
      "_headers:2: line is 2010 characters long; at most 2000",
    );
  });

  it("parseHeaders: 100 rules pass; the 101st is refused on its line", () => {
    const rules = Array.from({ length: 100 }, (_, i) => `/p${i}\n  X-N: ${i}`);
    expect(parseHeaders(rules.join("\n"))).toHaveLength(100);
    expect(refusal([...rules, "/p100\n  X-N: 100"].join("\n"))).toBe("_headers:201: more than 100 rules");
  });

  it("parseHeaders: every wrong line is named at once, in order, a refused rule's lines not twice", () => {
    const text = "/*\n  Content-Length: 5\n  X-Ok: yes\n/b\n  X-Empty:\n  Bad Name: x\n";
    expect(refusal(text)).toBe(
      "_headers:2: Content-Length is set by the edge itself; _headers cannot change it; " +
        '_headers:5: "x-empty" has no value; ' +
        '_headers:6: "Bad Name" is not a header name',
    );
  });
});
