import { describe, expect, it } from "vitest";
import { CompiledRules } from "./compiled-rules.js";
import { parseHeaders } from "./parse-headers.js";
import { parseRedirects } from "./parse-redirects.js";

const compile = (redirects: string, headers = "") =>
  new CompiledRules({ redirects: parseRedirects(redirects), headers: parseHeaders(headers) });

describe("CompiledRules", () => {
  it("redirectFor: a static rule matches with or without a trailing slash; others do not match", () => {
    const rules = compile("/old /new\n/dir/ /other 302");
    expect(rules.redirectFor("/old", "")).toEqual({ kind: "redirect", status: 301, location: "/new" });
    expect(rules.redirectFor("/old/", "")).toEqual({ kind: "redirect", status: 301, location: "/new" });
    expect(rules.redirectFor("/dir", "")?.location).toBe("/other");
    expect(rules.redirectFor("/older", "")).toBeUndefined();
    expect(rules.redirectFor("/OLD", "")).toBeUndefined();
  });

  it("redirectFor: splats and placeholders are carried into the target, percent-encoded", () => {
    const rules = compile(
      [
        "/blog/* /news/:splat",
        "/u/:id/:tab /users/:tab/:id 302",
        "/ext/* https://example.com/:splat 308",
      ].join("\n"),
    );
    expect(rules.redirectFor("/blog/2024/a post", "")?.location).toBe("/news/2024/a%20post");
    expect(rules.redirectFor("/blog/", "")?.location).toBe("/news/");
    expect(rules.redirectFor("/u/42/posts", "")).toEqual({
      kind: "redirect",
      status: 302,
      location: "/users/posts/42",
    });
    expect(rules.redirectFor("/u/42/posts/", "")?.location).toBe("/users/posts/42");
    expect(rules.redirectFor("/u/42", "")).toBeUndefined();
    expect(rules.redirectFor("/ext/café", "")?.location).toBe("https://example.com/caf%C3%A9");
  });

  it("redirectFor: a literal target's non-ASCII characters and spaces are percent-encoded; an encoded source matches the decoded path", () => {
    const rules = compile("/menu /caf\u00e9/menu\u20ac\n/caf%C3%A9/old /new");
    expect(rules.redirectFor("/menu", "")?.location).toBe("/caf%C3%A9/menu%E2%82%AC");
    expect(rules.redirectFor("/caf\u00e9/old", "")?.location).toBe("/new");
  });

  it("redirectFor: the request's query is kept unless the target has its own, before a fragment", () => {
    const rules = compile("/a /b\n/c /d?x=1\n/e /f#part");
    expect(rules.redirectFor("/a", "?q=1")?.location).toBe("/b?q=1");
    expect(rules.redirectFor("/c", "?q=1")?.location).toBe("/d?x=1");
    expect(rules.redirectFor("/e", "?q=1")?.location).toBe("/f?q=1#part");
  });

  it("redirectFor: the first rule in the file wins, static or dynamic", () => {
    const rules = compile("/x/* /first\n/x/y /second\n/p /third\n/p /fourth\n/:any /fifth");
    expect(rules.redirectFor("/x/y", "")?.location).toBe("/first");
    expect(rules.redirectFor("/p", "")?.location).toBe("/third");
    expect(rules.redirectFor("/q", "")?.location).toBe("/fifth");
  });

  it("rewriteFor: only 200 rules, giving the decoded site path without query or fragment", () => {
    const rules = compile("/app/* /app/index.html?from=:splat 200\n/old /new");
    expect(rules.rewriteFor("/app/a b/c")).toBe("/app/index.html");
    expect(rules.rewriteFor("/old")).toBeUndefined();
    expect(rules.redirectFor("/app/x", "")).toBeUndefined();
  });

  it("headersFor: every matching rule applies; a name set twice is joined; ! Name removes it from all", () => {
    const rules = compile(
      "",
      [
        "/*",
        "  X-Frame-Options: DENY",
        "  Link: </a.css>; rel=preload",
        "/assets/*",
        "  Cache-Control: max-age=31536000",
        "  Link: </b.js>; rel=preload",
        "/assets/raw/:file",
        "  ! X-Frame-Options",
      ].join("\n"),
    );
    expect(rules.headersFor("/index.html")).toEqual({
      set: new Map([
        ["x-frame-options", "DENY"],
        ["link", "</a.css>; rel=preload"],
      ]),
      remove: new Set(),
    });
    const raw = rules.headersFor("/assets/raw/x.png")!;
    expect(raw.set.get("link")).toBe("</a.css>; rel=preload, </b.js>; rel=preload");
    expect(raw.set.get("cache-control")).toBe("max-age=31536000");
    expect([...raw.remove]).toEqual(["x-frame-options"]);
    expect(compile("", "/only\n  X-A: b").headersFor("/other")).toBeUndefined();
  });

  it("headersFor: rules apply in file order: ! Name removes what came before; a later rule sets it again", () => {
    const rules = compile(
      "",
      ["/*", "  X-A: 1", "  X-B: 1", "/p/*", "  ! X-A", "  ! X-B", "/p/q", "  X-A: 2"].join("\n"),
    );
    const changes = rules.headersFor("/p/q")!;
    expect([...changes.set]).toEqual([["x-a", "2"]]);
    expect([...changes.remove]).toEqual(["x-b"]);
  });

  it("empty: true only without any rule", () => {
    expect(compile("").empty).toBe(true);
    expect(compile("/a /b 200").empty).toBe(false);
    expect(compile("", "/a\n  X-A: b").empty).toBe(false);
  });
});
