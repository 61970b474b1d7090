import { InvalidCompletionError } from "../../core/errors.js";
import { generateOpaqueId } from "../../core/ids.js";
import { Pacer, yieldToEventLoop } from "../../shared/event-loop.js";
import type { ManifestEntry } from "../../core/manifest.js";
import { type BucketLimits, groupIntoBuckets } from "./buckets.js";
import type { UploadTokens } from "./tokens.js";
import type { UploadSessions } from "./upload-sessions.js";
import type { Platform, PublishInput, SiteSettings, UploadSession } from "../../core/ports/index.js";
import type { BlobStore } from "./blob-store.js";
import type { PlatformDatabase } from "./database.js";
import {
  type CollectionResult,
  collectGarbage,
  collectGarbageStep,
  reclaimBlobs,
} from "./garbage-collector.js";
import { SiteTables } from "./site-tables.js";

/**
 * How long one transaction of a large session's rows may take before the event loop gets a turn;
 * short, because its commit (the WAL's fsync) costs about as much again as writing the rows.
 */
const WRITE_SLICE_MS = 5;
/** Rows one step of the sweep deletes at most: a few milliseconds of the thread. */
const SWEEP_BATCH = 500;

export interface LocalPlatformOptions {
  db: PlatformDatabase;
  blobs: BlobStore;
  sessions: UploadSessions;
  tokens: UploadTokens;
  accountId: string;
  /** Full URL of the built-in upload service's bucket endpoint. */
  uploadUrl: string;
  bucketLimits: BucketLimits;
  now: () => number;
}

/**
 * The platform on one machine: the built-in upload service's sessions, the blob store, and the
 * published manifest the built-in edge reads.
 */
export class LocalPlatform implements Platform {
  private readonly sites: SiteTables;

  constructor(private readonly options: LocalPlatformOptions) {
    this.sites = new SiteTables(options.db);
  }

  async openUploadSession(input: {
    projectSlug: string;
    entries: ManifestEntry[];
    expiresAt: Date;
  }): Promise<UploadSession> {
    const { sessions, tokens, accountId, now } = this.options;
    const sessionId = generateOpaqueId();
    const expiresAt = input.expiresAt.getTime();
    const missing = await sessions.open(
      { id: sessionId, projectSlug: input.projectSlug, expiresAt },
      input.entries,
      now(),
      new Pacer(WRITE_SLICE_MS),
    );
    await yieldToEventLoop();
    const buckets = groupIntoBuckets(missing, this.options.bucketLimits);
    // With nothing to upload, the upload token is itself the completion token (Cloudflare's rule).
    const purposes = buckets.length === 0 ? (["upload", "completion"] as const) : (["upload"] as const);
    const uploadJwt = await tokens.sign([...purposes], sessionId, accountId, input.expiresAt);
    return {
      sessionId,
      accountId,
      uploadJwt,
      buckets,
      uploadUrl: this.options.uploadUrl,
      expiresAt: input.expiresAt,
    };
  }

  async publishRevision(input: PublishInput): Promise<void> {
    const { sessions, tokens, now } = this.options;
    const tokenSession = await tokens.verify("completion", input.completionJwt, new Date(now()));
    if (tokenSession === undefined) {
      throw new InvalidCompletionError("completion token is invalid or expired");
    }
    if (tokenSession !== input.sessionId) {
      throw new InvalidCompletionError("completion token belongs to another deploy");
    }
    const session = sessions.get(input.sessionId);
    if (!session || session.projectSlug !== input.projectSlug) {
      throw new InvalidCompletionError("upload session is gone; prepare the deploy again");
    }
    if (session.expiresAt <= now()) {
      throw new InvalidCompletionError("upload session expired; prepare the deploy again");
    }
    const missing = sessions.missingCount(input.sessionId);
    if (missing > 0)
      throw new InvalidCompletionError(`${missing} assets are still missing; upload them first`);
    this.sites.publish({
      projectSlug: input.projectSlug,
      revisionId: input.revisionId,
      sessionId: input.sessionId,
      hostnames: input.hostnames,
      expiresAt: input.expiresAt.getTime(),
      now: now(),
    });
  }

  async updateSite(projectSlug: string, settings: SiteSettings): Promise<void> {
    this.sites.update(projectSlug, settings.hostnames, settings.expiresAt.getTime());
  }

  async unpublishProject(projectSlug: string): Promise<void> {
    const { db, blobs } = this.options;
    const candidates = this.sites.hashesOf(projectSlug);
    this.sites.remove(projectSlug);
    reclaimBlobs(db, blobs, candidates);
  }

  /**
   * Reclaims in steps of at most SWEEP_BATCH rows (expired sessions' manifests, the sessions, then
   * unreferenced blobs), yielding to the event loop between them, so a large collection (a million
   * expired rows) never stalls the API, uploads and the edge that share this process.
   */
  async sweep(now: Date): Promise<CollectionResult> {
    const total: CollectionResult = { sessionsExpired: 0, blobsDeleted: 0, bytesFreed: 0 };
    for (;;) {
      const step = collectGarbageStep(this.options.db, this.options.blobs, now.getTime(), SWEEP_BATCH);
      total.sessionsExpired += step.sessionsExpired;
      total.blobsDeleted += step.blobsDeleted;
      total.bytesFreed += step.bytesFreed;
      if (step.done) return total;
      await yieldToEventLoop();
    }
  }

  /** Reclaims expired sessions and unreferenced content. */
  collectGarbage(now = this.options.now()): CollectionResult {
    return collectGarbage(this.options.db, this.options.blobs, now);
  }

  async check(): Promise<void> {
    this.options.db.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    if (this.options.db.open) this.options.db.close();
  }
}
