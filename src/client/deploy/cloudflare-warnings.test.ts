import { describe, expect, it } from "vitest";
import type { CommandContext } from "../context.js";
import { createProgress } from "../progress.js";
import type { SiteFile } from "../scan/walk-state.js";
import { warnCloudflareDrops } from "./cloudflare-warnings.js";

/** The lines a deploy with these rules and files would print off a terminal. */
function warnings(redirects: string | undefined, paths: string[] = []): string[] {
  let stderr = "";
  const progress = createProgress({ write: (text: string) => (stderr += text) }, false);
  const ctx = { progress } as CommandContext;
  const files: SiteFile[] = paths.map((path) => ({
    path,
    absPath: `/site/${path}`,
    size: 1,
    mtimeMs: 0,
    ino: 0,
  }));
  warnCloudflareDrops(ctx, redirects === undefined ? {} : { redirects }, files);
  return stderr.split("\n").filter((line) => line !== "");
}

describe("warnCloudflareDrops", () => {
  it("warnCloudflareDrops: no _redirects, or rules Cloudflare keeps as written, warn of nothing", () => {
    expect(warnings(undefined, ["index.html"])).toEqual([]);
    expect(warnings("/old /new 301\n/app/* /app/main.html 200\n", ["index.html", "new.html"])).toEqual([]);
  });

  it("warnCloudflareDrops: a rule to an index page from a pattern covering it is dropped as a loop, by its line", () => {
    expect(warnings("# rules\n/app/* /app/index.html 200\n/docs/ /docs/index 301\n")).toEqual([
      'warning: _redirects:2: Cloudflare drops "/app/* /app/index.html 200" as a loop ' +
        "(a pattern covering the index page it points to); there its URLs answer as if it were not written",
      'warning: _redirects:3: Cloudflare drops "/docs/ /docs/index 301" as a loop ' +
        "(a pattern covering the index page it points to); there its URLs answer as if it were not written",
    ]);
  });

  it("warnCloudflareDrops: a 200 rule over files of the site names three of them and counts the rest", () => {
    const paths = [
      "index.html",
      "shop/a.html",
      "shop/b.html",
      "shop/c/index.html",
      "shop/d.css",
      "shop/e.js",
      "shop/f.js",
    ];
    expect(warnings("/shop/* /shop/a.html 200\n", paths)).toEqual([
      'warning: _redirects:1: on Cloudflare "/shop/* /shop/a.html 200" also replaces /shop/b, /shop/c/, ' +
        "/shop/d.css and 2 more (Cloudflare rewrites before it looks for a file); narrow its pattern",
    ]);
    // Three are all named.
    expect(warnings("/shop/* /shop/a 200\n", paths.slice(0, 5))[0]).toContain(
      "also replaces /shop/b, /shop/c/, /shop/d.css (Cloudflare",
    );
  });

  it("warnCloudflareDrops: a file is named by its URL: .html dropped only at the end, index.html only as a whole name", () => {
    const paths = [
      "shop/a.html",
      "shop/page.html.txt",
      "shop/index.html.gz",
      "shop/myindex.html",
      "shop/d/index.html",
    ];
    expect(warnings("/shop/* /shop/a 200\n", paths)[0]).toContain(
      "also replaces /shop/page.html.txt, /shop/index.html.gz, /shop/myindex and 1 more (Cloudflare",
    );
  });

  it("warnCloudflareDrops: a 200 rule that covers only its own target page replaces nothing", () => {
    expect(warnings("/shop/* /shop/a 200\n", ["index.html", "shop/a.html"])).toEqual([]);
  });

  it("warnCloudflareDrops: too many rules to match each with and without a trailing slash is said once", () => {
    const rules = Array.from({ length: 51 }, (_, i) => `/u${i}/:id /users/:id 301`).join("\n");
    expect(warnings(rules)).toEqual([
      "warning: _redirects: too many rules for Cloudflare to match each with and without a trailing slash; " +
        "there a rule matches only the path as written",
    ]);
    expect(warnings(rules.split("\n").slice(0, 50).join("\n"))).toEqual([]);
    // Said also when some rules, a splat's, have no twin to make.
    expect(warnings(`${rules}\n/old/* /new 301`)).toHaveLength(1);
  });
});
