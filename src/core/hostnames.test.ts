import { describe, expect, it } from "vitest";
import { InvalidDomainError } from "./errors.js";
import { assertClaimable, generatedHostname, type HostnamePolicy, revisionHostname } from "./hostnames.js";

const policy: HostnamePolicy = { sitesDomain: "sites.test", cnameTarget: "edge.sites.test" };

/** The message of the InvalidDomainError `run` throws; fails the test when it throws nothing else. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDomainError);
    return (error as Error).message;
  }
  throw new Error("expected an InvalidDomainError, nothing was thrown");
}

describe("hostnames", () => {
  it("generatedHostname / revisionHostname: slug under SITES_DOMAIN, revision joined by --", () => {
    expect(generatedHostname("brave-otter-k3x9q", policy)).toBe("brave-otter-k3x9q.sites.test");
    expect(revisionHostname("abc0123456", "brave-otter-k3x9q", policy)).toBe(
      "abc0123456--brave-otter-k3x9q.sites.test",
    );
  });

  it("assertClaimable: SITES_DOMAIN itself and the CNAME target are reserved", () => {
    expect(refusal(() => assertClaimable("sites.test", policy))).toBe('domain "sites.test" is reserved');
    expect(refusal(() => assertClaimable("edge.sites.test", policy))).toBe(
      'domain "edge.sites.test" is reserved',
    );
  });

  it("assertClaimable: a label with -- is reserved, except an A-label's leading xn--", () => {
    for (const bad of [
      "rev--slug.example.com",
      "a.b--c.example",
      "xn--ab--cd.example",
      "ab-xn--cd.example",
    ]) {
      expect(
        refusal(() => assertClaimable(bad, policy)),
        bad,
      ).toBe(`domain "${bad}" is reserved: labels may not contain "--"`);
    }
    expect(() => assertClaimable("xn--bcher-kva.example", policy)).not.toThrow();
  });

  it("assertClaimable: one label under SITES_DOMAIN is a vanity name; deeper names are reserved", () => {
    expect(() => assertClaimable("my-site.sites.test", policy)).not.toThrow();
    expect(refusal(() => assertClaimable("a.b.sites.test", policy))).toBe(
      'domain "a.b.sites.test" is reserved: names under sites.test take one label',
    );
    // A name that merely ends like SITES_DOMAIN is not under it.
    expect(() => assertClaimable("a.bsites.test", policy)).not.toThrow();
    expect(() => assertClaimable("www.example.com", policy)).not.toThrow();
  });

  it("assertClaimable: the service's own vanity names and the CNAME target's label are reserved", () => {
    const elsewhere = { sitesDomain: "sites.test", cnameTarget: "cname.example.net" };
    for (const label of ["api", "upload", "www", "admin", "edge", "mail", "status"]) {
      expect(
        refusal(() => assertClaimable(`${label}.sites.test`, elsewhere)),
        label,
      ).toBe(`domain "${label}.sites.test" is reserved for the service itself`);
    }
    expect(refusal(() => assertClaimable("cname.sites.test", elsewhere))).toBe(
      'domain "cname.sites.test" is reserved for the service itself',
    );
    // Reserved only as vanity names: the same labels elsewhere are anyone's.
    expect(() => assertClaimable("www.example.com", elsewhere)).not.toThrow();
    expect(() => assertClaimable("api.shop.example", elsewhere)).not.toThrow();
    expect(() => assertClaimable("apis.sites.test", elsewhere)).not.toThrow();
  });
});
