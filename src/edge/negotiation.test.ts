import { describe, expect, it } from "vitest";
import { chooseEncoding, entityTag, ifRangeHolds, noneMatchHits } from "./negotiation.js";

describe("negotiation", () => {
  it("chooseEncoding: prefers brotli, then gzip, else identity", () => {
    expect(chooseEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(chooseEncoding("gzip, deflate")).toBe("gzip");
    expect(chooseEncoding("deflate")).toBe("identity");
    expect(chooseEncoding(undefined)).toBe("identity");
    expect(chooseEncoding("")).toBe("identity");
  });

  it("chooseEncoding: honours weights, q=0 exclusions and the wildcard", () => {
    expect(chooseEncoding("br;q=0, gzip")).toBe("gzip");
    expect(chooseEncoding("br;q=0.5, gzip;q=0.9")).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip;q=0")).toBe("identity");
    expect(chooseEncoding("*")).toBe("br");
    expect(chooseEncoding("br;q=0, *")).toBe("gzip");
    expect(chooseEncoding("*;q=0")).toBe("identity");
    expect(chooseEncoding("GZIP")).toBe("gzip");
    expect(chooseEncoding("x-gzip")).toBe("gzip");
  });

  it("chooseEncoding: a repeated header gets the same answer", () => {
    expect(chooseEncoding("gzip")).toBe("gzip");
    expect(chooseEncoding("gzip")).toBe("gzip");
    expect(chooseEncoding("br")).toBe("br");
  });

  it("entityTag: gives each coding its own strong tag", () => {
    expect(entityTag("abc", "identity")).toBe('"abc"');
    expect(entityTag("abc", "br")).toBe('"abc-br"');
    expect(entityTag("abc", "gzip")).toBe('"abc-gz"');
  });

  it("noneMatchHits: matches listed, weak and wildcard tags", () => {
    expect(noneMatchHits('"abc"', '"abc"')).toBe(true);
    expect(noneMatchHits('"x", W/"abc"', '"abc"')).toBe(true);
    expect(noneMatchHits("*", '"abc"')).toBe(true);
    expect(noneMatchHits('"abc-br"', '"abc"')).toBe(false);
    expect(noneMatchHits(undefined, '"abc"')).toBe(false);
  });

  it("ifRangeHolds: holds without If-Range or with the exact strong tag only", () => {
    expect(ifRangeHolds(undefined, '"abc"')).toBe(true);
    expect(ifRangeHolds('"abc"', '"abc"')).toBe(true);
    expect(ifRangeHolds('W/"abc"', '"abc"')).toBe(false);
    expect(ifRangeHolds("Wed, 21 Oct 2015 07:28:00 GMT", '"abc"')).toBe(false);
  });

  it("chooseEncoding: parameters other than q leave the weight alone", () => {
    expect(chooseEncoding("br;level=11, gzip;q=0.5")).toBe("br");
    expect(chooseEncoding("gzip;foo=bar;q=0.2, br;q=0.1")).toBe("gzip");
  });

  it("noneMatchHits: a padded wildcard hits; a weak tag hits only when its opaque part is the tag", () => {
    expect(noneMatchHits("  *  ", '"h"')).toBe(true);
    expect(noneMatchHits('W/"h"', '"h"')).toBe(true);
    expect(noneMatchHits('W/"other"', '"h"')).toBe(false);
    // Two characters before the tag that are not `W/` do not make it weak.
    expect(noneMatchHits('X/"h"', '"h"')).toBe(false);
  });

  it("ifRangeHolds: the client's tag is compared without the spaces around it", () => {
    expect(ifRangeHolds(' "h" ', '"h"')).toBe(true);
    expect(ifRangeHolds('W/"h"', '"h"')).toBe(false);
  });
});
