import type { S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { createS3Client } from "./s3-client.js";
import type { S3Settings } from "./s3-settings.js";

const SETTINGS: S3Settings = {
  location: { bucket: "deploy-packs", prefix: "" },
  region: "eu-west-3",
  endpoint: "http://127.0.0.1:9000",
  forcePathStyle: true,
  credentials: { accessKeyId: "key id", secretAccessKey: "secret" },
  timeoutMs: 8_000,
  diskCacheBytes: 1024,
};

/** The settings a client was made with, as the SDK resolved them (no request is sent). */
async function resolved(client: S3Client) {
  const config = client.config;
  const handler = config.requestHandler as unknown as { configProvider: Promise<Record<string, unknown>> };
  const { connectionTimeout, requestTimeout } = await handler.configProvider;
  const credentials = await config.credentials();
  return {
    region: await config.region(),
    endpoint: config.endpoint === undefined ? undefined : await config.endpoint(),
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    requestChecksumCalculation: await config.requestChecksumCalculation(),
    responseChecksumValidation: await config.responseChecksumValidation(),
    connectionTimeout,
    requestTimeout,
  };
}

describe("createS3Client", () => {
  it("createS3Client: the region, endpoint, path style and credentials given; checksums only when required; each request within timeoutMs, connecting within 5 s at most", async () => {
    const client = createS3Client(SETTINGS);
    try {
      expect(await resolved(client)).toEqual({
        region: "eu-west-3",
        endpoint: { hostname: "127.0.0.1", port: 9000, protocol: "http:", path: "/", query: undefined },
        forcePathStyle: true,
        credentials: { accessKeyId: "key id", secretAccessKey: "secret" },
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
        connectionTimeout: 5_000,
        requestTimeout: 8_000,
      });
    } finally {
      client.destroy();
    }
  });

  it("createS3Client: a timeout under 5 s bounds connecting too; AWS's endpoint and virtual-host style when none is given", async () => {
    const client = createS3Client({
      ...SETTINGS,
      region: "us-east-1",
      endpoint: undefined,
      forcePathStyle: false,
      timeoutMs: 3_000,
    });
    try {
      expect(await resolved(client)).toMatchObject({
        region: "us-east-1",
        endpoint: undefined,
        forcePathStyle: false,
        connectionTimeout: 3_000,
        requestTimeout: 3_000,
      });
    } finally {
      client.destroy();
    }
  });
});
