import { forEachLimit } from "./concurrency.js";
import { plural } from "../format.js";
import { ApiError, CliError } from "../errors.js";
import { headerValue, sendRequest, type HttpResponse } from "../net/http.js";
import { bucketBody, type BucketAsset } from "./multipart.js";
import { parseRetryAfter, withRetry, type RetryNotice, type RetryPolicy } from "../net/retry.js";
import type { SiteFile } from "../scan/walk-state.js";
import type { KeptTexts } from "../scan/kept-text.js";

/** The upload service refused the upload token (expired): prepare again and go on. */
export class UploadTokenExpiredError extends CliError {
  constructor(url: string) {
    super("UPLOAD_TOKEN_EXPIRED", `the upload service at ${url} refused the upload token (expired)`);
  }
}

/** What to upload where: the prepare answer's buckets, with the file that holds each hash. */
interface UploadPlan {
  uploadUrl: string;
  uploadJwt: string;
  buckets: string[][];
  fileByHash: ReadonlyMap<string, SiteFile>;
  /** Base64 texts the hashing kept: sent instead of reading their files, forgotten once held. */
  kept?: KeptTexts;
}

/** How to upload. */
interface UploadOptions {
  concurrency: number;
  retry: RetryPolicy;
  onRetry?: (notice: RetryNotice) => void;
  /**
   * Files and raw file bytes written to the connection as their parts go (a file once its part is
   * whole); negative when a failed attempt's are taken back.
   */
  onSent?: (files: number, bytes: number) => void;
  /** Called when a bucket is held by the service, with its assets. */
  onBucket?: (assets: readonly BucketAsset[]) => void;
}

/**
 * Uploads every bucket, several at once, each retried on network errors, 5xx, 429 and 408. Returns the
 * completion token the service issued once it held everything (undefined if it issued none).
 * Throws UploadTokenExpiredError on 401, an ApiError on any other refusal.
 */
export async function uploadBuckets(plan: UploadPlan, options: UploadOptions): Promise<string | undefined> {
  let completionJwt: string | undefined;
  await forEachLimit(plan.buckets, options.concurrency, async (hashes) => {
    const assets = hashes.map((hash) => {
      const file = plan.fileByHash.get(hash);
      if (file === undefined) {
        throw new CliError("BAD_BUCKET", `the server asked for ${hash}, which no file of this folder has`);
      }
      const text = plan.kept?.get(file);
      return text === undefined ? { hash, file } : { hash, file, text };
    });
    const jwt = await uploadBucket(plan, assets, options);
    plan.kept?.release(assets.map((asset) => asset.file));
    options.onBucket?.(assets);
    if (jwt !== undefined) completionJwt = jwt;
  });
  return completionJwt;
}

async function uploadBucket(
  plan: UploadPlan,
  assets: BucketAsset[],
  options: UploadOptions,
): Promise<string | undefined> {
  const body = bucketBody(assets);
  const names = assets.slice(0, 3).map((asset) => asset.file.path);
  const step = `upload ${plural(assets.length, "file")} (${names.join(", ")}${assets.length > 3 ? ", …" : ""})`;
  const response = await withRetry(
    async () => {
      let sentFiles = 0;
      let sentBytes = 0;
      const onSent = (files: number, bytes: number) => {
        sentFiles += files;
        sentBytes += bytes;
        options.onSent?.(files, bytes);
      };
      try {
        const response = await sendRequest(step, {
          method: "POST",
          url: plan.uploadUrl,
          headers: {
            authorization: `Bearer ${plan.uploadJwt}`,
            "content-type": body.contentType,
            "content-length": body.length,
            accept: "application/json",
          },
          body: () => body.stream(onSent),
        });
        return checkUpload(step, plan.uploadUrl, response, assets);
      } catch (error) {
        options.onSent?.(-sentFiles, -sentBytes);
        throw error;
      }
    },
    options.retry,
    options.onRetry,
  );
  const parsed = parseEnvelope(response.text);
  const jwt = (parsed?.result as { jwt?: unknown } | undefined)?.jwt;
  return typeof jwt === "string" && jwt !== "" ? jwt : undefined;
}

function checkUpload(step: string, url: string, response: HttpResponse, assets: BucketAsset[]): HttpResponse {
  if (response.status >= 200 && response.status < 300) return response;
  if (response.status === 401) throw new UploadTokenExpiredError(url);
  const envelope = parseEnvelope(response.text);
  const first = envelope?.errors?.[0];
  const code = first?.code !== undefined ? String(first.code) : `HTTP_${response.status}`;
  let message = first?.message ?? (response.text.trim().slice(0, 200) || "(empty body)");
  for (const asset of assets) {
    if (message.includes(asset.hash)) message += ` [${asset.hash} is ${asset.file.path}]`;
  }
  const retryAfter = parseRetryAfter(headerValue(response.headers["retry-after"]));
  throw new ApiError(step, url, response.status, code, message, undefined, retryAfter);
}

interface Envelope {
  success?: boolean;
  errors?: Array<{ code?: unknown; message?: string }>;
  result?: unknown;
}

function parseEnvelope(text: string): Envelope | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Envelope) : undefined;
  } catch {
    return undefined;
  }
}
