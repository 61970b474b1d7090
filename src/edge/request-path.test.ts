import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidatePaths, decodePath, requestTarget } from "./request-path.js";

describe("request path", () => {
  it("requestTarget: splits path and query (no fragment) and keeps the Host header for origin-form", () => {
    expect(requestTarget("/a/b?x=1#y", "site.test")).toEqual({
      host: "site.test",
      rawPath: "/a/b",
      query: "?x=1",
    });
    expect(requestTarget("/a#y?z", "site.test")).toEqual({ host: "site.test", rawPath: "/a", query: "" });
    expect(requestTarget("/a/b?x=1", "site.test")).toEqual({
      host: "site.test",
      rawPath: "/a/b",
      query: "?x=1",
    });
    expect(requestTarget("/a/b", undefined)).toEqual({ host: undefined, rawPath: "/a/b", query: "" });
  });

  it("requestTarget: takes host and path from an absolute-form target", () => {
    expect(requestTarget("http://Other.test:8080/a%20b?q", "site.test")).toEqual({
      host: "other.test:8080",
      rawPath: "/a%20b",
      query: "?q",
    });
  });

  it("requestTarget: refuses targets that are neither origin- nor absolute-form", () => {
    expect(requestTarget("*", "site.test")).toBeUndefined();
    expect(requestTarget("ftp://x/", "site.test")).toBeUndefined();
    expect(requestTarget("xhttp://x/", "site.test")).toBeUndefined();
    expect(requestTarget("http://[bad/", "site.test")).toBeUndefined();
  });

  it("decodePath: decodes percent-encoding per segment", () => {
    expect(decodePath("/caf%C3%A9/a%20b.html")).toEqual({ kind: "path", path: "/café/a b.html" });
    expect(decodePath("/")).toEqual({ kind: "path", path: "/" });
    expect(decodePath("/a/")).toEqual({ kind: "path", path: "/a/" });
    expect(decodePath("/a+b")).toEqual({ kind: "path", path: "/a+b" });
  });

  it("decodePath: malformed percent-encoding is a bad request", () => {
    expect(decodePath("/a%")).toEqual({ kind: "bad-request" });
    expect(decodePath("/a%zz")).toEqual({ kind: "bad-request" });
    expect(decodePath("/%C3")).toEqual({ kind: "bad-request" });
  });

  it("decodePath: segments no manifest key can hold are not found", () => {
    for (const raw of [
      "/../etc/passwd",
      "/a/../b",
      "/%2e%2e/x",
      "/%2E%2E%2Fx",
      "/./a",
      "//a",
      "/a//b",
      "/a%2Fb",
      "/a%5Cb",
      "/a\\b",
      "/..\\x",
      "/a%00.html",
      "/a%0a",
      "/a%7F",
    ]) {
      expect(decodePath(raw), raw).toEqual({ kind: "not-found" });
    }
  });

  it("decodePath: double encoding decodes once, leaving a literal name", () => {
    expect(decodePath("/%252e%252e/x")).toEqual({ kind: "path", path: "/%2e%2e/x" });
  });

  it("decodePath: a decoded path never holds a dot segment, backslash, control character or encoded slash", () => {
    const piece = fc.constantFrom(
      "a",
      "b.html",
      ".",
      "%2e",
      "%2E",
      "%2f",
      "%2F",
      "%5c",
      "\\",
      "%00",
      "%0a",
      "%25",
      "%C3%A9",
      "%zz",
      "%",
    );
    const segment = fc.array(piece, { maxLength: 4 }).map((pieces) => pieces.join(""));
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 6 }), (segments) => {
        const decoded = decodePath(`/${segments.join("/")}`);
        if (decoded.kind !== "path") return;
        const parts = decoded.path.slice(1).split("/");
        expect(parts.length).toBe(segments.length);
        for (const [i, part] of parts.entries()) {
          expect(part === "." || part === "..").toBe(false);
          expect(part === "" && i !== parts.length - 1).toBe(false);
          // eslint-disable-next-line no-control-regex
          expect(/[\u0000-\u001f\u007f\\]/.test(part)).toBe(false);
        }
      }),
    );
  });

  it("candidatePaths: maps / and directories to index.html, names to name, name.html, name/index.html", () => {
    expect(candidatePaths("/")).toEqual(["/index.html"]);
    expect(candidatePaths("/a/")).toEqual(["/a/index.html"]);
    expect(candidatePaths("/a")).toEqual(["/a", "/a.html", "/a/index.html"]);
  });
});
