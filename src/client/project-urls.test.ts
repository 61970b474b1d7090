import { describe, expect, it } from "vitest";
import type { PublicProject } from "./net/api-types.js";
import { domainPending, pendingDomain, servingUrl } from "./project-urls.js";

function project(custom: { hostname: string; status: "pending" | "active" } | null): PublicProject {
  const generatedHostname = "coral-birch-nkc37.sites.example";
  const hostname = custom?.hostname ?? generatedHostname;
  return {
    projectSlug: "coral-birch-nkc37",
    hostname,
    generatedHostname,
    customHostname: custom?.hostname ?? null,
    customHostnameStatus: custom?.status ?? null,
    productionUrl: `https://${hostname}:8443/`,
    revisionId: null,
    createdAt: "2026-11-27T00:00:00.000Z",
    expiresAt: "2026-12-27T00:00:00.000Z",
  };
}

describe("project-urls", () => {
  it("servingUrl: a pending custom hostname serves at the generated hostname, same scheme and port", () => {
    const pending = project({ hostname: "www.example.org", status: "pending" });
    expect(domainPending(pending)).toBe(true);
    expect(servingUrl(pending)).toBe("https://coral-birch-nkc37.sites.example:8443/");
    expect(pendingDomain(pending)).toEqual({
      pendingDomain: {
        hostname: "www.example.org",
        servingUrl: "https://coral-birch-nkc37.sites.example:8443/",
      },
    });
  });

  it("servingUrl: an active custom hostname, or none, serves at the production URL", () => {
    const active = project({ hostname: "www.example.org", status: "active" });
    expect(domainPending(active)).toBe(false);
    expect(servingUrl(active)).toBe("https://www.example.org:8443/");
    expect(pendingDomain(active)).toEqual({});
    const plain = project(null);
    expect(domainPending(plain)).toBe(false);
    expect(servingUrl(plain)).toBe("https://coral-birch-nkc37.sites.example:8443/");
    expect(pendingDomain(plain)).toEqual({});
  });

  it("domainPending: a pending status without a hostname is not a pending domain", () => {
    const odd = { ...project(null), customHostnameStatus: "pending" as const };
    expect(domainPending(odd)).toBe(false);
  });
});
