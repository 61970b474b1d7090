import type { PreparedDeploy } from "../net/api-types.js";
import { retryNote, type CommandContext } from "../context.js";
import { CliError } from "../errors.js";
import { formatBytes, formatDuration, plural } from "../format.js";
import { uploadBuckets, UploadTokenExpiredError } from "./upload-buckets.js";
import type { SiteFile } from "../scan/walk-state.js";
import type { KeptTexts } from "../scan/kept-text.js";

/** What the uploads achieved: the deploy to complete, its completion token, and what travelled. */
export interface UploadOutcome {
  deployId: string;
  completionJwt: string;
  uploadedHashes: Set<string>;
}

const MAX_ROUNDS = 4;

/**
 * Uploads what the prepare answer asks for. When the upload token expires, or the service held
 * everything yet issued no completion token, prepares again (which asks only for what is still
 * missing) and goes on, a few rounds at most.
 */
export async function uploadAll(
  ctx: CommandContext,
  first: PreparedDeploy,
  fileByHash: ReadonlyMap<string, SiteFile>,
  prepareAgain: () => Promise<PreparedDeploy>,
  kept?: KeptTexts,
): Promise<UploadOutcome> {
  const uploadedHashes = new Set<string>();
  let prepared = first;
  for (let round = 1; ; round++) {
    if (prepared.buckets.length === 0 || prepared.buckets.every((bucket) => bucket.length === 0)) {
      return { deployId: prepared.deployId, completionJwt: prepared.uploadJwt, uploadedHashes };
    }
    const jwt = await uploadRound(ctx, prepared, { fileByHash, kept }, (hash) => uploadedHashes.add(hash));
    if (jwt !== undefined) return { deployId: prepared.deployId, completionJwt: jwt, uploadedHashes };
    if (round >= MAX_ROUNDS) {
      throw new CliError(
        "UPLOAD_INCOMPLETE",
        `the upload service at ${prepared.urls.upload} did not confirm the upload after ${round} rounds`,
        "Run deploy again; only what is still missing will be uploaded.",
      );
    }
    prepared = await prepareAgain();
  }
}

async function uploadRound(
  ctx: CommandContext,
  prepared: PreparedDeploy,
  { fileByHash, kept }: { fileByHash: ReadonlyMap<string, SiteFile>; kept: KeptTexts | undefined },
  onAsset: (hash: string) => void,
): Promise<string | undefined> {
  const hashes = prepared.buckets.flat();
  const bytes = hashes.reduce((sum, hash) => sum + (fileByHash.get(hash)?.size ?? 0), 0);
  const started = Date.now();
  // Counted as the parts are written to the connection: the service answers a whole request
  // (a bucket) at a time, so the line says "sent", then what the service is still storing.
  const requests = prepared.buckets.length;
  let sentFiles = 0;
  let stored = 0;
  const storing = () => {
    const waiting = requests - stored;
    ctx.progress.status(
      sentFiles >= hashes.length && waiting > 0
        ? `sent; the server is storing the last ${plural(waiting, "request")}`
        : undefined,
    );
  };
  ctx.progress.start("Uploading", hashes.length, bytes);
  try {
    const jwt = await uploadBuckets(
      {
        uploadUrl: prepared.urls.upload,
        uploadJwt: prepared.uploadJwt,
        buckets: prepared.buckets,
        fileByHash,
        ...(kept === undefined ? {} : { kept }),
      },
      {
        concurrency: ctx.settings.uploadConcurrency,
        retry: ctx.retry,
        onRetry: retryNote(ctx.progress),
        onSent: (files, sentBytes) => {
          sentFiles += files;
          ctx.progress.advance(files, sentBytes);
          storing();
        },
        onBucket: (assets) => {
          stored++;
          for (const asset of assets) onAsset(asset.hash);
          storing();
        },
      },
    );
    ctx.progress.finish(
      `Uploaded ${plural(hashes.length, "file")} (${formatBytes(bytes)}) in ${formatDuration(Date.now() - started)}`,
    );
    if (jwt === undefined)
      ctx.progress.note("The upload service issued no completion token; preparing again.");
    return jwt;
  } catch (error) {
    if (!(error instanceof UploadTokenExpiredError)) {
      ctx.progress.finish("Upload failed.");
      throw error;
    }
    ctx.progress.finish(`${error.message}; preparing the deploy again to upload what is still missing.`);
    return undefined;
  }
}
