import { describe, expect, it } from "vitest";
import { InvalidDomainError } from "./errors.js";
import {
  assertClaimable,
  generatedHostname,
  type HostnamePolicy,
  normalizeHostname,
  revisionHostname,
} from "./hostnames.js";

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

/** `count` labels of `a`s joined by dots, each `labelLength` long, then `.com`. */
const longName = (total: number) => {
  const head = "a".repeat(total - ".com".length);
  // Labels of at most 63: cut the head into dotted pieces of 60.
  return `${head
    .match(/.{1,60}/g)!
    .join(".")
    .slice(0, total - 4)}.com`;
};

describe("hostnames", () => {
  it("generatedHostname / revisionHostname: slug under SITES_DOMAIN, revision joined by --", () => {
    expect(generatedHostname("brave-otter-k3x9q", policy)).toBe("brave-otter-k3x9q.sites.test");
    expect(revisionHostname("abc0123456", "brave-otter-k3x9q", policy)).toBe(
      "abc0123456--brave-otter-k3x9q.sites.test",
    );
  });

  it("normalizeHostname: folds case and turns an IDN into punycode", () => {
    expect(normalizeHostname("WWW.Example.COM")).toBe("www.example.com");
    expect(normalizeHostname("bücher.example")).toBe("xn--bcher-kva.example");
  });

  it("normalizeHostname: accepts exactly 253 characters and refuses 254", () => {
    const at253 = longName(253);
    expect(at253).toHaveLength(253);
    expect(normalizeHostname(at253)).toBe(at253);
    const at254 = longName(254);
    expect(at254).toHaveLength(254);
    expect(refusal(() => normalizeHostname(at254))).toContain("is not a valid hostname");
  });

  it("normalizeHostname: refuses a name whose punycode form passes 253 characters", () => {
    // Four labels of 55 ü's: 231 characters as typed, 255 as A-labels.
    const name = `${Array(4).fill("ü".repeat(55)).join(".")}.example`;
    expect(name.length).toBeLessThan(253);
    expect(refusal(() => normalizeHostname(name))).toContain("is not a valid hostname");
  });

  it("normalizeHostname: refuses the empty string, a trailing or a leading dot, one label", () => {
    for (const bad of ["", "www.example.com.", ".example.com", "localhost", "a..example.com"]) {
      expect(
        refusal(() => normalizeHostname(bad)),
        bad,
      ).toContain("is not a valid hostname");
    }
  });

  it("normalizeHostname: names the input in its message, escaped", () => {
    expect(refusal(() => normalizeHostname("bad name.example"))).toBe(
      'domain "bad name.example" is not a valid hostname',
    );
    expect(refusal(() => normalizeHostname("a\u0001b.example"))).toBe(
      'domain "a\\u0001b.example" is not a valid hostname',
    );
  });

  it("normalizeHostname: refuses IPv4 and IPv6 addresses, bracketed or not, as IP addresses", () => {
    for (const ip of ["192.168.0.1", "::1", "[::1]", "2001:db8::1", "[2001:db8::1]"]) {
      expect(
        refusal(() => normalizeHostname(ip)),
        ip,
      ).toBe("domain must be a hostname, not an IP address");
    }
  });

  it("normalizeHostname: refuses an all-numeric top-level label, accepts digits elsewhere", () => {
    for (const bad of ["example.123", "a.b.1", "example.9"]) {
      expect(
        refusal(() => normalizeHostname(bad)),
        bad,
      ).toContain("is not a valid hostname");
    }
    for (const good of ["123.example.com", "a1.b2.co", "example.c0m", "x.a1"]) {
      expect(normalizeHostname(good), good).toBe(good);
    }
  });

  it("normalizeHostname: labels of 1 to 63 letters, digits and inner hyphens", () => {
    expect(normalizeHostname(`${"a".repeat(63)}.com`)).toBe(`${"a".repeat(63)}.com`);
    expect(normalizeHostname("a.co")).toBe("a.co");
    for (const bad of [`${"a".repeat(64)}.com`, "-a.com", "a-.com", "a_b.com", "a b.com"]) {
      expect(
        refusal(() => normalizeHostname(bad)),
        bad,
      ).toContain("is not a valid hostname");
    }
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
