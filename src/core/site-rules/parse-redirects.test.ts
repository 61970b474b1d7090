import { describe, expect, it } from "vitest";
import { InvalidSiteConfigError } from "../errors.js";
import { parseRedirects } from "./parse-redirects.js";

/** The message of the InvalidSiteConfigError a text raises. */
function refusal(text: string): string {
  try {
    parseRedirects(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSiteConfigError);
    expect((error as InvalidSiteConfigError).code).toBe("INVALID_SITE_CONFIG");
    return (error as Error).message;
  }
  throw new Error("parsed without a refusal");
}

describe("parseRedirects", () => {
  it("parseRedirects: from, to and status; 301 by default; comments, blank lines and CRLF skipped", () => {
    const text = "# moved pages\r\n\r\n/old /new\r\n  /temp   /elsewhere   302  \n\t# indented comment\n";
    expect(parseRedirects(text)).toEqual([
      { from: "/old", to: "/new", status: 301, line: 3 },
      { from: "/temp", to: "/elsewhere", status: 302, line: 4 },
    ]);
  });

  it("parseRedirects: every status it accepts (301, 302, 303, 307, 308, 200)", () => {
    const codes = [301, 302, 303, 307, 308, 200];
    const rules = parseRedirects(codes.map((code, i) => `/a${i} /b${i} ${code}`).join("\n"));
    expect(rules.map((rule) => rule.status)).toEqual(codes);
  });

  it("parseRedirects: splats, placeholders and absolute targets", () => {
    const text = [
      "/blog/* /news/:splat",
      "/users/:id/posts/:post /u/:id/p/:post 302",
      "/ext/* https://example.com/docs/:splat 308",
      "/port https://example.com:8443/x?a=1#top",
      "/app/* /index.html 200",
    ].join("\n");
    expect(parseRedirects(text).map((rule) => [rule.from, rule.to, rule.status])).toEqual([
      ["/blog/*", "/news/:splat", 301],
      ["/users/:id/posts/:post", "/u/:id/p/:post", 302],
      ["/ext/*", "https://example.com/docs/:splat", 308],
      ["/port", "https://example.com:8443/x?a=1#top", 301],
      ["/app/*", "/index.html", 200],
    ]);
  });

  it("parseRedirects: a byte-order mark is ignored; an empty file has no rules", () => {
    expect(parseRedirects("\uFEFF/a /b")).toEqual([{ from: "/a", to: "/b", status: 301, line: 1 }]);
    expect(parseRedirects("")).toEqual([]);
  });

  it("parseRedirects: each kind of bad line is refused with file:line and what is wrong", () => {
    expect(refusal("/a /b\n/lonely")).toBe('_redirects:2: expected "from to [status]", got 1 field');
    expect(refusal("/a /b 301 Country=us")).toBe('_redirects:1: expected "from to [status]", got 4 fields');
    expect(refusal("old /new")).toBe('_redirects:1: "old" must be a path starting with /');
    expect(refusal("/a /b 404")).toBe(
      '_redirects:1: status "404" is not one of 301, 302, 303, 307, 308, 200',
    );
    expect(refusal("/a /b 301!")).toBe(
      '_redirects:1: status "301!" is not one of 301, 302, 303, 307, 308, 200',
    );
    expect(refusal("/a ftp://x/b")).toBe(
      '_redirects:1: the target "ftp://x/b" must be a path starting with / or an http(s) URL',
    );
    expect(refusal("/a //evil.test/")).toBe(
      '_redirects:1: the target "//evil.test/" must be a path starting with / or an http(s) URL',
    );
    expect(refusal("/a https://example.com/x 200")).toBe(
      '_redirects:1: a 200 rewrite must go to a path of this site starting with /, not "https://example.com/x"',
    );
    expect(refusal("/a/* /b/*/* 301\n/x/*/* /y")).toBe(
      '_redirects:2: "/x/*/*" has 2 splats (*); a pattern may have one',
    );
    expect(refusal("/a/:id/:id /b")).toBe('_redirects:1: placeholder ":id" appears twice in "/a/:id/:id"');
    expect(refusal("/a/:splat /b")).toBe(
      '_redirects:1: ":splat" cannot be a placeholder name in "/a/:splat"; use *',
    );
    expect(refusal("/news/:year-:month /b")).toBe(
      '_redirects:1: ":year" in "/news/:year-:month" must be a whole path segment (/:year/)',
    );
    expect(refusal("/news/x:id /b")).toBe(
      '_redirects:1: ":id" in "/news/x:id" must be a whole path segment (/:id/)',
    );
    expect(refusal("/a/:id /b/:name")).toBe(
      '_redirects:1: the target uses :name, which "/a/:id" does not bind',
    );
    expect(refusal("/a /b/:splat")).toBe('_redirects:1: the target uses :splat, which "/a" does not bind');
    expect(refusal(`/a /${"b".repeat(1_000)}`)).toBe(
      "_redirects:1: line is 1004 characters long; at most 1000",
    );
  });

  it("parseRedirects: 2,000 static rules and 100 dynamic ones pass; one more of either is refused on its line", () => {
    const statics = Array.from({ length: 2_000 }, (_, i) => `/s${i} /t${i}`);
    const dynamics = Array.from({ length: 100 }, (_, i) => `/d${i}/* /e${i}/:splat`);
    expect(parseRedirects([...statics, ...dynamics].join("\n"))).toHaveLength(2_100);
    expect(refusal([...statics, "/one-more /x"].join("\n"))).toBe(
      "_redirects:2001: more than 2000 static rules",
    );
    expect(refusal([...dynamics, "/more/:id /x"].join("\n"))).toBe(
      "_redirects:101: more than 100 dynamic rules (with * or :placeholders)",
    );
  });

  it("parseRedirects: a file over 4 MiB is refused whole", () => {
    expect(refusal(`# ${"x".repeat(4 * 1024 * 1024)}`)).toBe("_redirects: larger than 4 MiB");
  });

  it("parseRedirects: every wrong line is named at once, in order, and the good ones between do not hide them", () => {
    const text = "/ok /fine\n/a /b 404\n/c\n/d /e\n/f relative\n";
    expect(refusal(text)).toBe(
      '_redirects:2: status "404" is not one of 301, 302, 303, 307, 308, 200; ' +
        '_redirects:3: expected "from to [status]", got 1 field; ' +
        '_redirects:5: the target "relative" must be a path starting with / or an http(s) URL',
    );
  });

  it("parseRedirects: a file of thousands of wrong lines names the first 50 and counts the rest", () => {
    const message = refusal(Array.from({ length: 3000 }, (_, i) => `/x${i}`).join("\n"));
    expect(message.split("; ")).toHaveLength(51);
    expect(message).toMatch(/^_redirects:1: /);
    expect(message.endsWith("and 2950 more")).toBe(true);
  });
});
