import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("object store settings", () => {
  it("loadConfig: without OBJECT_STORE_URL packs stay in DATA_DIR", () => {
    expect(loadConfig({}).objectStore).toBeUndefined();
  });

  it("loadConfig: OBJECT_STORE_URL with the AWS_ and S3_ variables gives the bucket, prefix, endpoint and keys", () => {
    const config = loadConfig({
      OBJECT_STORE_URL: "s3://site-packs/prod/eu/",
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret-example",
      AWS_REGION: "auto",
      S3_ENDPOINT: "https://account.r2.cloudflarestorage.com",
      S3_FORCE_PATH_STYLE: "true",
      EDGE_DISK_CACHE_BYTES: "1000",
      OBJECT_STORE_TIMEOUT_SECONDS: "7",
    });
    expect(config.objectStore).toEqual({
      location: { bucket: "site-packs", prefix: "prod/eu/" },
      region: "auto",
      endpoint: "https://account.r2.cloudflarestorage.com",
      forcePathStyle: true,
      credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret-example" },
      timeoutMs: 7000,
      diskCacheBytes: 1000,
    });
    expect(loadConfig({ OBJECT_STORE_URL: "s3://site-packs" }).objectStore).toMatchObject({
      location: { bucket: "site-packs", prefix: "" },
      region: "us-east-1",
      forcePathStyle: false,
      credentials: undefined,
    });
  });

  it("loadConfig: a malformed OBJECT_STORE_URL, S3_ENDPOINT or a lone key is one line naming the variable", () => {
    for (const url of ["https://bucket/x", "s3://", "s3://UPPER", "s3://a"]) {
      expect(() => loadConfig({ OBJECT_STORE_URL: url })).toThrow(ConfigError);
      expect(() => loadConfig({ OBJECT_STORE_URL: url })).toThrow(/^OBJECT_STORE_URL: must be s3:\/\/bucket/);
    }
    const url = { OBJECT_STORE_URL: "s3://site-packs" };
    expect(() => loadConfig({ ...url, AWS_ACCESS_KEY_ID: "AKID" })).toThrow(
      /^AWS_SECRET_ACCESS_KEY: required/,
    );
    expect(() => loadConfig({ ...url, AWS_SECRET_ACCESS_KEY: "s" })).toThrow(/^AWS_ACCESS_KEY_ID: required/);
    expect(() => loadConfig({ ...url, S3_ENDPOINT: "not a url" })).toThrow(/^S3_ENDPOINT: /);
    expect(() => loadConfig({ ...url, S3_FORCE_PATH_STYLE: "yes" })).toThrow(/^S3_FORCE_PATH_STYLE: /);
    // The secret itself never goes into the message.
    expect(() => loadConfig({ ...url, AWS_SECRET_ACCESS_KEY: "hunter2-secret" })).not.toThrow(/hunter2/);
  });
});
