import fc from "fast-check";

/** The fixed seed of every property in this folder: a failure reproduces exactly. */
export const FUZZ_SEED = Number(process.env.HARDENING_FUZZ_SEED ?? 20_260_505);
/** Cases per property; `HARDENING_FUZZ_RUNS` raises it for a longer run. */
export const FUZZ_RUNS = Number(process.env.HARDENING_FUZZ_RUNS ?? 150);

/** A test's time limit for `runs` cases of about `msPerCase` each, never under a minute. */
export function fuzzTimeout(runs: number, msPerCase: number): number {
  return Math.max(60_000, runs * msPerCase * 2);
}

/** fast-check settings shared by the fuzzers: fixed seed, bounded count, no shrinking marathon. */
export function fuzzSettings(runs = FUZZ_RUNS): fc.Parameters<unknown> {
  return { seed: FUZZ_SEED, numRuns: runs, endOnFailure: true };
}

/** Strings that have broken parsers, validators and databases before. */
export const TRICKY_STRINGS = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "\udfff",
  "\u202e",
  "\u200b",
  "\ufeff",
  "\r\n",
  "０".repeat(64),
  "ａ".repeat(64),
  `${"a".repeat(63)}\u0301`,
  `${"a".repeat(64)}\n`,
  ` ${"a".repeat(64)}`,
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "../../../../etc/passwd",
  "..\\..\\..\\windows\\win.ini",
  "%2e%2e%2f%2e%2e%2f",
  "%00",
  "null",
  "undefined",
  "NaN",
  `0x${"0".repeat(62)}`,
  "a".repeat(65),
  `${"A".repeat(63)}G`,
  "<script>alert(1)</script>",
  "'; DROP TABLE projects; --",
  "${jndi:ldap://example.com/a}",
  "😀".repeat(32),
  "\u0130".repeat(64),
];

/** A hostile string: tricky constants, random text in several alphabets, or a very long one. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 80 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(20_000, 150_000).map((n) => "x".repeat(n)) },
);

/** A JSON value of the wrong type for a string field. */
export const nonString: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

/** 64 hex characters, any case: a well-formed identity value (of no existing project, by chance). */
export const hex64 = fc
  .string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: 64, maxLength: 64 })
  .filter((s) => s.length === 64);

/** Texts that are not a JSON object: junk, truncated JSON, other JSON values, odd encodings. */
export function notAnObject(validText: string): fc.Arbitrary<Buffer> {
  const isObject = (text: string) => {
    try {
      const value = JSON.parse(text);
      return typeof value === "object" && value !== null && !Array.isArray(value);
    } catch {
      return false;
    }
  };
  return (
    fc
      .oneof(
        fc.string({ maxLength: 200 }).map((s) => Buffer.from(s)),
        fc.nat({ max: Math.max(0, validText.length - 1) }).map((n) => Buffer.from(validText.slice(0, n))),
        fc.string({ maxLength: 20 }).map((s) => Buffer.from(`${validText}${s || "x"}`)),
        fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v) ?? "null")),
        fc
          .constantFrom(
            "",
            "null",
            "[]",
            "[{}]",
            '"object"',
            "0",
            "true",
            "{",
            "}",
            "{'a':1}",
            '{"a":1,}',
            "{a:1}",
            "NaN",
            "\u0000",
            "[".repeat(50_000) + "]".repeat(50_000),
          )
          .map((s) => Buffer.from(s)),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
        // A byte-order mark before JSON that is not an object (a BOM before an object is accepted).
        fc.constant(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("[1]")])),
        fc.constant(Buffer.from(validText, "utf16le")),
      )
      // Decoded as the server decodes it (UTF-8, a leading BOM dropped, bad bytes replaced).
      .filter((bytes) => !isObject(new TextDecoder().decode(bytes)))
  );
}

/** Content-Types a JSON route must refuse with 415. */
export const badContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    "",
    "text/plain",
    "text/json",
    "application/jsonp",
    "application/json-patch+json",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/javascript",
    "json",
    "application/*",
    "*/*",
    "application/ json",
  ),
  fc
    .string({ unit: "grapheme-ascii", maxLength: 40 })
    .filter((s) => !/^application\/json\s*(;|$)/i.test(s) && !/[\r\n]/.test(s)),
);

/** A request body as JSON text from ordered entries, so duplicate and `__proto__` keys survive. */
export function jsonText(entries: [string, unknown][]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? "null"}`).join(",")}}`;
}

/** Percent-encodes what a request-target cannot carry raw, keeping `%` as given. */
export function encodeTarget(segment: string): string {
  return Buffer.from(segment, "utf8")
    .toString("latin1")
    .replace(
      /[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
    );
}
