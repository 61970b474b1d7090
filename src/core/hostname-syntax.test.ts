import { domainToUnicode } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidDomainError } from "./errors.js";
import { normalizeHostname } from "./hostname-syntax.js";

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

/** A hostname of exactly `total` characters: labels of 60 `a`s, then `.com`. */
const longName = (total: number) => {
  const head = "a".repeat(total - ".com".length);
  return `${head
    .match(/.{1,60}/g)!
    .join(".")
    .slice(0, total - 4)}.com`;
};

/** The name an input stands for once case is folded and one trailing dot dropped. */
const folded = (input: string) => (input.endsWith(".") ? input.slice(0, -1) : input).toLowerCase();

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/).filter((l) => !l.includes("--"));
const hostname = fc
  .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.stringMatching(/^[a-z][a-z0-9]{1,8}$/))
  .map(([labels, tld]) => [...labels, tld].join("."));

/** Junk that makes a hostname something else, and the word its refusal must use. */
const JUNK: [string, string][] = [
  ["/path", "path"],
  ["/", "path"],
  ["?x=1", "query"],
  ["#frag", "fragment"],
  [":8080", "port"],
  ["\\evil", "backslash"],
  [" ", "whitespace"],
  ["\t", "whitespace"],
  ["\u0000", "control character"],
];

describe("normalizeHostname", () => {
  it("normalizeHostname: folds case, drops one trailing dot, turns an IDN into punycode", () => {
    expect(normalizeHostname("WWW.Example.COM")).toBe("www.example.com");
    expect(normalizeHostname("www.example.com.")).toBe("www.example.com");
    expect(normalizeHostname("bücher.example")).toBe("xn--bcher-kva.example");
    expect(normalizeHostname("Bücher.Example.")).toBe("xn--bcher-kva.example");
    expect(normalizeHostname("xn--bcher-kva.example")).toBe("xn--bcher-kva.example");
  });

  it("normalizeHostname: refuses each thing that is not a bare hostname, naming it", () => {
    const cases: [string, string][] = [
      ["www.example.com/path", "has a path"],
      ["www.example.com?x=1", "has a query"],
      ["www.example.com#frag", "has a fragment"],
      ["\\evil.example.com", "contains a backslash"],
      ["%77ww.example.com", "contains a percent sign"],
      ["https://www.example.com", "has a scheme"],
      ["www.example.com:443", "has a port"],
      ["me@www.example.com", "has a user name"],
      ["www.example.com..", "ends in more than one dot"],
      ["a..example.com", "has an empty label"],
      [".example.com", "has an empty label"],
      ["localhost", "needs at least two labels"],
      ["", "is empty"],
      [`${"a".repeat(64)}.com`, "has a label of 64 characters, more than 63"],
      [longName(254), "is 254 characters long, more than 253"],
      ["-a.com", 'starts or ends with "-"'],
      ["a-.com", 'starts or ends with "-"'],
      ["a_b.com", 'contains "_"'],
      ["example.123", "all-numeric label"],
      ["a b.com", "contains whitespace"],
    ];
    for (const [input, problem] of cases) {
      expect(
        refusal(() => normalizeHostname(input)),
        input,
      ).toContain(problem);
    }
  });

  it("normalizeHostname: refuses IPv4 and IPv6 addresses, bracketed or not, as IP addresses", () => {
    for (const ip of ["192.168.0.1", "::1", "[::1]", "2001:db8::1", "[2001:db8::1]"]) {
      expect(
        refusal(() => normalizeHostname(ip)),
        ip,
      ).toBe(`domain "${ip}" is an IP address, not a hostname`);
    }
  });

  it("normalizeHostname: refuses what IDNA would change beyond case (mapped or dropped characters)", () => {
    // A soft hyphen is dropped by IDNA, a full-width letter or dot mapped: not the name typed.
    for (const input of ["ex\u00adample.com", "ｅxample.com", "a\u3002example.com", "xn--zz.example"]) {
      expect(
        refusal(() => normalizeHostname(input)),
        input,
      ).toMatch(/normal form|internationalised/);
    }
  });

  it("normalizeHostname: accepts exactly 253 characters and labels of 63", () => {
    expect(normalizeHostname(longName(253))).toBe(longName(253));
    expect(normalizeHostname(`${"a".repeat(63)}.com`)).toBe(`${"a".repeat(63)}.com`);
    expect(normalizeHostname("123.example.com")).toBe("123.example.com");
  });

  it("normalizeHostname: refuses a name whose punycode form passes 253 characters", () => {
    const name = `${Array(4).fill("ü".repeat(55)).join(".")}.example`;
    expect(name.length).toBeLessThan(253);
    expect(refusal(() => normalizeHostname(name))).toContain("more than 253");
  });

  it("normalizeHostname: names the input in its message, escaped", () => {
    expect(refusal(() => normalizeHostname("a\u0001b.example"))).toBe(
      'domain "a\\u0001b.example" contains a control character',
    );
  });

  it("normalizeHostname: any valid hostname is taken unchanged, whatever its case or one trailing dot", () => {
    fc.assert(
      fc.property(hostname, fc.boolean(), fc.boolean(), (name, upper, dot) => {
        const input = `${upper ? name.toUpperCase() : name}${dot ? "." : ""}`;
        expect(normalizeHostname(input)).toBe(name);
      }),
      { numRuns: 500 },
    );
  });

  it("normalizeHostname: a hostname with junk around it is always refused, the message naming the junk", () => {
    fc.assert(
      fc.property(
        hostname,
        fc.constantFrom(...JUNK),
        fc.stringMatching(/^[a-z0-9.-]{0,12}$/),
        (name, [junk, word], tail) => {
          expect(refusal(() => normalizeHostname(`${name}${junk}${tail}`))).toContain(word);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("normalizeHostname: generated junk is refused or taken whole, never silently shortened", () => {
    const junk = fc.oneof(
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.tuple(hostname, fc.string({ unit: "binary", maxLength: 8 }), hostname).map((p) => p.join("")),
      fc.tuple(fc.string({ maxLength: 6 }), hostname, fc.string({ maxLength: 6 })).map((p) => p.join("")),
    );
    fc.assert(
      fc.property(junk, (input) => {
        let result: string;
        try {
          result = normalizeHostname(input);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidDomainError);
          return;
        }
        // Accepted: its Unicode form is exactly what was typed, case folded and one dot dropped.
        expect(domainToUnicode(result)).toBe(folded(input));
        expect(result).toMatch(/^[a-z0-9.-]+$/);
      }),
      { numRuns: 3000 },
    );
  });
});
