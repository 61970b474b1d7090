import { getRequestListener } from "@hono/node-server";
import type { Logger } from "pino";
import type { BodyPace } from "../shared/body-pace.js";
import type { Metrics } from "../shared/observability/metrics.js";
import type { OutageLog } from "../shared/observability/outage-log.js";
import { outageCode } from "./outage-code.js";
import { createEdgeHandler, type EdgeHandler, largestCachedBlob } from "../edge/index.js";
import {
  openSelfHostedState,
  SelfHostedEdgeStorage,
  SelfHostedUploadStorage,
  type SelfHostedPlatform,
  type SelfHostedStateOptions,
} from "../platform/selfhost/index.js";
import { createUploadApp } from "../upload/upload-app.js";
import { PartHashPool } from "../upload/part-hash-pool.js";
import { UploadService } from "../upload/upload-service.js";

/** The self-hosted platform's settings and those of its two HTTP faces. */
export interface SelfHostedPlatformOptions extends Omit<SelfHostedStateOptions, "log"> {
  maxAssetBytes: number;
  /** Threads that decode and hash uploaded parts (UPLOAD_HASH_THREADS); 0 or absent: the main thread. */
  hashThreads?: number;
  sitesDomain: string;
  edgeCacheBytes: number;
  logger: Logger;
  /** Counts the upload service's requests and bytes. */
  metrics?: Metrics;
  /** The slowest a bucket body may arrive (BODY_MIN_BYTES_PER_SECOND); no minimum when absent. */
  bodyPace?: BodyPace;
  /** Where the edge counts requests an outage failed (one line per interval); without it, one error each. */
  outages?: OutageLog;
}

/** The built-in platform, whole: the `Platform` port and the two listeners that face the world. */
export interface SelfHostedParts {
  platform: SelfHostedPlatform;
  /** Request listener of the upload service (Cloudflare's bucket-upload protocol). */
  uploadListener: ReturnType<typeof getRequestListener>;
  /** Request listener of the edge, which serves the published sites by Host. */
  edgeListener: EdgeHandler;
  /** Stops the hashing threads, then closes the platform. */
  close(): Promise<void>;
}

/**
 * Opens the self-hosted platform under `dir` and builds its upload service and edge on that one state.
 */
export async function openSelfHostedPlatform(
  dir: string,
  options: SelfHostedPlatformOptions,
): Promise<SelfHostedParts> {
  const { logger, now } = options;
  const state = await openSelfHostedState(dir, {
    ...options,
    log: logger,
    // What the edge keeps out of its memory cache has its compressed variants on disk.
    storage: options.storage && {
      diskVariantsAbove: largestCachedBlob(options.edgeCacheBytes),
      ...options.storage,
    },
  });
  const hashThreads = options.hashThreads ?? 0;
  const hashPool = hashThreads > 0 ? new PartHashPool(hashThreads) : undefined;
  const service = new UploadService({
    accountId: state.accountId,
    storage: new SelfHostedUploadStorage(state.upload),
    tokens: state.upload.tokens,
    maxAssetBytes: options.maxAssetBytes,
    maxFiles: options.bucketLimits.maxFiles,
    hashPool,
    // A full bucket plus room for the multipart framing of up to maxFiles parts.
    maxRequestBytes: options.bucketLimits.maxBytes + options.bucketLimits.maxFiles * 512 + 1024 * 1024,
    now,
  });
  return {
    platform: state.platform,
    uploadListener: getRequestListener(
      createUploadApp({
        service,
        logger: logger.child({ role: "upload" }),
        metrics: options.metrics,
        bodyPace: options.bodyPace,
      }).fetch,
    ),
    edgeListener: createEdgeHandler({
      storage: new SelfHostedEdgeStorage(state.edge, { sitesDomain: options.sitesDomain, now }),
      cacheBytes: options.edgeCacheBytes,
      onError: (error) => {
        const outage = outageCode(error);
        if (outage !== undefined && options.outages) options.outages.record(outage, error);
        else logger.error({ err: error, role: "edge" }, "edge request failed");
      },
    }),
    close: async () => {
      await hashPool?.close();
      await state.platform.close();
    },
  };
}
