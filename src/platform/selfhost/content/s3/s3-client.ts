import { S3Client } from "@aws-sdk/client-s3";
import type { S3Settings } from "./s3-settings.js";

/**
 * A client of the store. Checksums only where an operation requires them: S3-compatible stores do
 * not all take the SDK's default CRC32 headers. Retries are the SDK's (3 attempts, backoff).
 */
export function createS3Client(settings: S3Settings): S3Client {
  // The SDK's own switch (aws/aws-sdk-js-v3 issue 7983) for its 9-line notice on Node < 22, which
  // it prints to stderr as the first client is made: every log line of the process stays JSON.
  // An operator who set it either way is left alone.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    requestHandler: {
      connectionTimeout: Math.min(settings.timeoutMs, 5_000),
      requestTimeout: settings.timeoutMs,
    },
  });
}
