import { describe, expect, it } from "vitest";
import { revisionUrl, siteUrl, type SitePolicy } from "./site-urls.js";

const base: SitePolicy = {
  scheme: "http",
  publicPort: 8080,
  sitesDomain: "sites.test",
  cnameTarget: "edge.sites.test",
};

describe("site URLs", () => {
  it("siteUrl: scheme, hostname and the public port, ending in /", () => {
    expect(siteUrl("a.sites.test", base)).toBe("http://a.sites.test:8080/");
    expect(siteUrl("a.sites.test", { ...base, scheme: "https", publicPort: 8443 })).toBe(
      "https://a.sites.test:8443/",
    );
  });

  it("siteUrl: leaves out the scheme's default port, or no port at all", () => {
    expect(siteUrl("a.test", { ...base, publicPort: 80 })).toBe("http://a.test/");
    expect(siteUrl("a.test", { ...base, scheme: "https", publicPort: 443 })).toBe("https://a.test/");
    expect(siteUrl("a.test", { ...base, publicPort: undefined })).toBe("http://a.test/");
    // The other scheme's default is not a default here.
    expect(siteUrl("a.test", { ...base, publicPort: 443 })).toBe("http://a.test:443/");
    expect(siteUrl("a.test", { ...base, scheme: "https", publicPort: 80 })).toBe("https://a.test:80/");
  });

  it("revisionUrl: the revision's host under SITES_DOMAIN", () => {
    expect(revisionUrl("abc0123456", "brave-otter-k3x9q", base)).toBe(
      "http://abc0123456--brave-otter-k3x9q.sites.test:8080/",
    );
  });
});
