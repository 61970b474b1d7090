import { describe, expect, it } from "vitest";
import { parseObjectStoreUrl } from "./s3-settings.js";

describe("parseObjectStoreUrl", () => {
  it("parseObjectStoreUrl: s3://bucket alone has an empty prefix; a path becomes a prefix ending in one /", () => {
    expect(parseObjectStoreUrl("s3://deploy-packs")).toEqual({ bucket: "deploy-packs", prefix: "" });
    expect(parseObjectStoreUrl("s3://deploy-packs/")).toEqual({ bucket: "deploy-packs", prefix: "" });
    expect(parseObjectStoreUrl("s3://deploy-packs///")).toEqual({ bucket: "deploy-packs", prefix: "" });
    expect(parseObjectStoreUrl("s3://my.bucket-1/sites/prod")).toEqual({
      bucket: "my.bucket-1",
      prefix: "sites/prod/",
    });
    expect(parseObjectStoreUrl("s3://abc//a/b//")).toEqual({ bucket: "abc", prefix: "a/b/" });
    expect(parseObjectStoreUrl("s3://abc///a/b")).toEqual({ bucket: "abc", prefix: "a/b/" });
  });

  it("parseObjectStoreUrl: undefined for another scheme, or a bucket name S3 does not allow", () => {
    const longest = "a".repeat(63);
    expect(parseObjectStoreUrl(`s3://${longest}`)).toEqual({ bucket: longest, prefix: "" });
    for (const bad of [
      "http://bucket",
      "xs3://bucket",
      "s3://ab",
      `s3://${"a".repeat(64)}`,
      "s3://Bucket",
      "s3://-bucket",
      "s3://bucket-",
      "s3://buc_ket",
      "s3://",
    ]) {
      expect(parseObjectStoreUrl(bad)).toBeUndefined();
    }
  });
});
