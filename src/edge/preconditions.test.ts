import { describe, expect, it } from "vitest";
import { hasConditions, preconditionVerdict } from "./preconditions.js";

const HASH = "a".repeat(64);
// Modified at 08:30:15.900: an HTTP-date carries whole seconds, so 08:30:15 is "the same time".
const MODIFIED = Date.parse("2026-11-20T08:30:15.900Z");
const SAME_SECOND = "Fri, 20 Nov 2026 08:30:15 GMT";
const SECOND_BEFORE = "Fri, 20 Nov 2026 08:30:14 GMT";
const SECOND_AFTER = "Fri, 20 Nov 2026 08:30:16 GMT";

describe("preconditionVerdict", () => {
  it("preconditionVerdict: no validator proceeds", () => {
    expect(preconditionVerdict({}, HASH, MODIFIED)).toBe("proceed");
  });

  it("preconditionVerdict: If-Match of any coding's tag, in a list with spaces, or * proceeds", () => {
    for (const ifMatch of [`"${HASH}"`, `"${HASH}-br"`, `"${HASH}-gz"`, ` "other", "${HASH}-gz" `, " * "]) {
      expect(preconditionVerdict({ "if-match": ifMatch }, HASH, MODIFIED), ifMatch).toBe("proceed");
    }
  });

  it("preconditionVerdict: If-Match of another tag, a weak tag, a bare hash or a list with * is 412", () => {
    for (const ifMatch of ['"other"', `W/"${HASH}"`, HASH, `"${HASH}-identity"`, '"other", *', ""]) {
      expect(preconditionVerdict({ "if-match": ifMatch }, HASH, MODIFIED), ifMatch).toBe("failed");
    }
  });

  it("preconditionVerdict: If-Unmodified-Since compares whole seconds: 412 only when modified after it", () => {
    const verdict = (date: string) => preconditionVerdict({ "if-unmodified-since": date }, HASH, MODIFIED);
    expect(verdict(SECOND_BEFORE)).toBe("failed");
    expect(verdict(SAME_SECOND)).toBe("proceed");
    expect(verdict(SECOND_AFTER)).toBe("proceed");
    expect(verdict("not a date")).toBe("proceed");
  });

  it("preconditionVerdict: If-Unmodified-Since is ignored beside If-Match, which decides", () => {
    const stale = { "if-unmodified-since": SECOND_BEFORE };
    expect(preconditionVerdict({ ...stale, "if-match": `"${HASH}"` }, HASH, MODIFIED)).toBe("proceed");
    expect(
      preconditionVerdict({ "if-unmodified-since": SECOND_AFTER, "if-match": '"x"' }, HASH, MODIFIED),
    ).toBe("failed");
  });

  it("preconditionVerdict: If-Modified-Since compares whole seconds: 304 at or after the modification", () => {
    const verdict = (date: string) => preconditionVerdict({ "if-modified-since": date }, HASH, MODIFIED);
    expect(verdict(SAME_SECOND)).toBe("not-modified");
    expect(verdict(SECOND_AFTER)).toBe("not-modified");
    expect(verdict(SECOND_BEFORE)).toBe("proceed");
    expect(verdict("not a date")).toBe("proceed");
  });

  it("preconditionVerdict: If-Modified-Since is ignored beside If-None-Match, judged later", () => {
    const headers = { "if-modified-since": SECOND_AFTER, "if-none-match": '"other"' };
    expect(preconditionVerdict(headers, HASH, MODIFIED)).toBe("proceed");
  });

  it("preconditionVerdict: a failed If-Match is 412 even when If-Modified-Since would be 304", () => {
    const headers = { "if-match": '"other"', "if-modified-since": SECOND_AFTER };
    expect(preconditionVerdict(headers, HASH, MODIFIED)).toBe("failed");
  });
});

describe("hasConditions", () => {
  it("hasConditions: true for each of the four validators alone, false for none or others", () => {
    for (const name of ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since"]) {
      expect(hasConditions({ [name]: "x" }), name).toBe(true);
    }
    expect(hasConditions({})).toBe(false);
    expect(hasConditions({ range: "bytes=0-1", "if-range": '"x"', "accept-encoding": "br" })).toBe(false);
  });
});
