import { describe, expect, it } from "vitest";
import type { DomainState, ProjectRecord } from "../ports/store.js";
import type { SitePolicy } from "../site-urls.js";
import { siteSettings } from "./site-routing.js";

const policy: SitePolicy = {
  scheme: "https",
  publicPort: undefined,
  sitesDomain: "sites.test",
  cnameTarget: "edge.sites.test",
};
const expiresAt = new Date("2026-12-01T00:00:00.000Z");

function project(customHostname: string | null, status?: DomainState["status"]): ProjectRecord {
  const at = "2026-11-01T00:00:00.000Z";
  return {
    slug: "brave-otter-k3x9q",
    projectHash: "a".repeat(64),
    anonFingerprint: "b".repeat(64),
    tokenHash: "c".repeat(64),
    generatedHostname: "brave-otter-k3x9q.sites.test",
    customHostname,
    domain: status === undefined ? null : { status, claimedAt: at, checkedAt: at, message: null },
    revisionId: null,
    createdAt: at,
    expiresAt: at,
  };
}

describe("siteSettings", () => {
  it("siteSettings: without a custom hostname, the generated one alone and no canonical", () => {
    expect(siteSettings(project(null), policy, expiresAt)).toEqual({
      hostnames: ["brave-otter-k3x9q.sites.test"],
      expiresAt,
    });
  });

  it("siteSettings: a pending custom hostname answers beside the generated one, which is not sent to it", () => {
    expect(siteSettings(project("www.example.com", "pending"), policy, expiresAt)).toEqual({
      hostnames: ["brave-otter-k3x9q.sites.test", "www.example.com"],
      expiresAt,
    });
  });

  it("siteSettings: an active custom hostname is canonical, with its URL", () => {
    expect(siteSettings(project("www.example.com", "active"), policy, expiresAt)).toEqual({
      hostnames: ["brave-otter-k3x9q.sites.test", "www.example.com"],
      canonical: { hostname: "www.example.com", url: "https://www.example.com/" },
      expiresAt,
    });
  });
});
