import { sql } from "kysely";
import { RevisionNotFoundError } from "../../core/errors.js";
import { Pacer, yieldToEventLoop } from "../../shared/event-loop.js";
import {
  MAX_ALIASES,
  type Platform,
  type PublishInput,
  type SiteSettings,
  type UploadSession,
  type UploadSessionRequest,
} from "../../core/ports/index.js";
import type { BlobReader } from "./content/blob-reader.js";
import { type BackgroundLog, BackgroundWork } from "./background-work.js";
import { compactStep } from "./maintenance/compaction.js";
import { forgetDeletedPacks, forgetDeletedVariants } from "./maintenance/forget-deleted-content.js";
import {
  type CollectionResult,
  type ContentFiles,
  collectGarbage,
  collectGarbageStep,
  reclaimBlobs,
} from "./maintenance/garbage-collector.js";
import { checkCompletion } from "./sessions/completion-check.js";
import { openAdmittedSession, type SessionSettings } from "./sessions/session-admission.js";
import { WRITE_SLICE_MS } from "./sessions/session-rows.js";
import { SiteTables } from "./sites/site-tables.js";
import { QuotaGate } from "./quotas/quota-gate.js";
import { UNLIMITED } from "./quotas/storage-limits.js";

/** Rows one step of the sweep deletes at most: a few milliseconds of the thread. */
const SWEEP_BATCH = 500;

export interface SelfHostedPlatformOptions extends SessionSettings {
  /** The pack files and the open packs. */
  files: ContentFiles;
  /** Reads blobs out of their packs (compaction copies them). */
  reader: BlobReader;
  /** Told of a failure of work done after an answer (none: such failures are dropped). */
  log?: BackgroundLog;
}

/**
 * The platform on one machine: the built-in upload service's sessions, the blob store, and the
 * published manifest the built-in edge reads.
 */
export class SelfHostedPlatform implements Platform {
  private readonly sites: SiteTables;
  private readonly quotas: QuotaGate;
  private readonly background: BackgroundWork;

  constructor(private readonly options: SelfHostedPlatformOptions) {
    this.sites = new SiteTables(options.db);
    this.quotas = new QuotaGate(options.db, options.storage ?? UNLIMITED, options.now);
    this.background = new BackgroundWork(options.log);
  }

  openUploadSession(input: UploadSessionRequest): Promise<UploadSession> {
    return openAdmittedSession({ ...this.options, quotas: this.quotas }, input);
  }

  async publishRevision(input: PublishInput): Promise<void> {
    const { sessions, now } = this.options;
    const pacer = new Pacer(WRITE_SLICE_MS);
    const { rules } = await checkCompletion(this.options, input, now());
    await this.sites.publish({
      rules,
      pacer,
      projectSlug: input.projectSlug,
      revisionId: input.revisionId,
      sessionId: input.sessionId,
      hostnames: input.hostnames,
      canonical: input.canonical,
      expiresAt: input.expiresAt.getTime(),
      now: now(),
      preview: input.preview,
      ...(input.alias === undefined ? {} : { alias: { name: input.alias, max: MAX_ALIASES } }),
      check: (trx, added) => this.quotas.published(trx, input.projectSlug, added, pacer),
    });
    // The revision has its files: the session's copies go now, not when it expires (they were
    // charged to nobody, issue 31), after the answer (a 50,000-file session's 150,000 rows took
    // 0.2 to 0.4 s of it, issue 32). What a failure or a crash leaves, the sweep removes at expiry.
    const { sessionId } = input;
    this.background.start("deleting a published session's rows", () =>
      sessions.dropPublished(sessionId, new Pacer(WRITE_SLICE_MS)),
    );
  }

  /**
   * Resolves once the work started after the answers given so far is done (a published session's
   * rows deleted): what reads the rows a publish leaves waits for it (collections here, tests).
   */
  settled(): Promise<void> {
    return this.background.settled();
  }

  async promoteRevision(projectSlug: string, revisionId: string): Promise<void> {
    if (!(await this.sites.promote(projectSlug, revisionId, this.options.now()))) {
      throw new RevisionNotFoundError(`revision ${revisionId} not found for project ${projectSlug}`);
    }
  }

  aliasRevision(projectSlug: string, alias: string): Promise<string | undefined> {
    return this.sites.aliasRevision(projectSlug, alias);
  }

  async pruneRevisions(projectSlug: string, revisionIds: string[]): Promise<void> {
    await this.sites.prune(projectSlug, revisionIds, (trx) => this.quotas.recharge(trx, projectSlug));
  }

  async updateSite(projectSlug: string, settings: SiteSettings): Promise<void> {
    await this.sites.update(
      projectSlug,
      settings.hostnames,
      settings.expiresAt.getTime(),
      settings.canonical,
    );
  }

  async unpublishProject(projectSlug: string): Promise<void> {
    const { db, files } = this.options;
    // A published session's rows name its hashes until they are deleted.
    await this.settled();
    const candidates = await this.sites.hashesOf(projectSlug);
    await this.sites.remove(projectSlug, (trx) => this.quotas.forget(trx, projectSlug));
    await reclaimBlobs(db, files, candidates);
  }

  /**
   * Reclaims in steps of at most SWEEP_BATCH rows (expired sessions' manifests, the sessions, then
   * unreferenced blobs), yielding to the event loop between them, so a large collection (a million
   * expired rows) never stalls the API, uploads and the edge that share this process. Then
   * compacts, a pack at a time, every pack left mostly dead, and moves content stored before packs
   * into packs.
   */
  async sweep(now: Date): Promise<CollectionResult> {
    const { db, files } = this.options;
    const total: CollectionResult = { sessionsExpired: 0, blobsDeleted: 0, bytesFreed: 0 };
    await this.settled();
    for (;;) {
      const step = await collectGarbageStep(db, files, now.getTime(), SWEEP_BATCH);
      total.sessionsExpired += step.sessionsExpired;
      total.blobsDeleted += step.blobsDeleted;
      total.bytesFreed += step.bytesFreed;
      if (step.done) break;
      await yieldToEventLoop();
    }
    await this.compact();
    return total;
  }

  /** Compacts until no pack is mostly dead and no content is stored outside packs. */
  async compact(): Promise<{ packsRemoved: number; bytesFreed: number; blobsMoved: number }> {
    const { db, files, reader, now } = this.options;
    const total = { packsRemoved: 0, bytesFreed: 0, blobsMoved: 0 };
    for (;;) {
      const step = await compactStep(db, files, reader, now());
      if (!step) return total;
      total.packsRemoved += step.packsRemoved;
      total.bytesFreed += step.bytesFreed;
      total.blobsMoved += step.blobsMoved;
      await yieldToEventLoop();
    }
  }

  /** Reclaims expired sessions and unreferenced content (packs left partly alive stay for `compact`). */
  async collectGarbage(now = this.options.now()): Promise<CollectionResult> {
    await this.settled();
    return collectGarbage(this.options.db, this.options.files, now);
  }

  /**
   * Lets go of this process's copies of content another process deleted: ranges of packs on its
   * disk and open pack files, and the compressed variants it made of blobs. Every process runs it
   * at start and once a sweep interval. How many packs and blobs it let go of.
   */
  async forgetDeletedContent(): Promise<{ packs: number; variants: number }> {
    const { db, files } = this.options;
    return {
      packs: await forgetDeletedPacks(db, files.storage),
      variants: await forgetDeletedVariants(db, files.packs),
    };
  }

  /** Content held: packs, their bytes, and the bytes blob rows still name (for /metrics). */
  async contentStats(): Promise<{ packs: number; bytes: number; liveBytes: number }> {
    const { rows } = await sql<{ packs: number; bytes: number; live_bytes: number }>`SELECT count(*) AS packs,
      CAST(coalesce(sum(size), 0) AS BIGINT) AS bytes, CAST(coalesce(sum(live_bytes), 0) AS BIGINT) AS live_bytes
      FROM packs`.execute(this.options.db.db);
    const row = rows[0]!;
    return { packs: Number(row.packs), bytes: Number(row.bytes), liveBytes: Number(row.live_bytes) };
  }

  async check(): Promise<void> {
    await sql`SELECT 1`.execute(this.options.db.db);
  }

  /** The object store holding the packs, when one does (OBJECT_STORE_URL). */
  dependencyChecks(): Record<string, () => Promise<void>> {
    const { storage } = this.options.files;
    return storage.kind === "object-store" ? { objectStore: () => storage.check() } : {};
  }

  async close(): Promise<void> {
    // Work after an answer (a published session's rows deleted) ends before the database does.
    await this.settled();
    await this.options.files.storage.close();
    await this.options.db.close();
  }
}
