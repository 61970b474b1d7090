import { describe, expect, it } from "vitest";
import { MAX_DYNAMIC_REDIRECTS, parseRedirects } from "../../core/site-rules/index.js";
import { cloudflareRedirectsText } from "./cloudflare-redirects.js";

const text = (redirects: string) => cloudflareRedirectsText(parseRedirects(redirects));

describe("cloudflareRedirectsText", () => {
  it("cloudflareRedirectsText: a rule without a status gets ours (301), not Cloudflare's (302)", () => {
    expect(text("/a/* /b/:splat\n")).toBe("/a/* /b/:splat 301\n");
  });

  it("cloudflareRedirectsText: a rewrite's target page becomes its canonical URL; a redirect's, and a rule Cloudflare drops as a loop, are left", () => {
    const rules = "/p/* /product.html 200\n/x/:id /d/index.html 200\n/y/* /index 200\n/z /a.html 302\n";
    expect(text(rules)).toBe(
      [
        "/p/* /product 200",
        "/x/:id /d/ 200",
        "/x/:id/ /d/ 200",
        "/y/* /index 200",
        "/z /a.html 302",
        "/z/ /a.html 302",
        "",
      ].join("\n"),
    );
  });

  it("cloudflareRedirectsText: each rule again with its trailing slash toggled, but a splat at the end and /", () => {
    expect(text("/old /new\n/dir/ /other 302\n/u/:id /people/:id 302\n/ /home 302\n")).toBe(
      [
        "/old /new 301",
        "/old/ /new 301",
        "/dir/ /other 302",
        "/dir /other 302",
        "/u/:id /people/:id 302",
        "/u/:id/ /people/:id 302",
        "/ /home 302",
        "",
      ].join("\n"),
    );
  });

  it("cloudflareRedirectsText: no twins at all when they would take the rules past Cloudflare's limits", () => {
    const rules = Array.from({ length: MAX_DYNAMIC_REDIRECTS / 2 + 1 }, (_, i) => `/u${i}/:id /p/:id 302`);
    const written = text(rules.join("\n"));
    expect(written.split("\n").filter(Boolean)).toHaveLength(rules.length);
  });
});
