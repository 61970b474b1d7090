import type { PartRun, ReceivedBucket } from "../../../core/uploaded-bucket.js";
import type { ContentDirectory } from "../content/content-directory.js";
import type { PackStorage } from "../content/pack-storage.js";
import type { PackWriter } from "../content/pack-writer.js";
import { lacksRoomFor, type StorageLimits } from "../quotas/storage-limits.js";
import type { SessionRow, UploadSessions } from "../sessions/upload-sessions.js";

/** What the upload service's storage is made of: the platform's state, as `openSelfHostedState` opens it. */
export interface UploadState {
  sessions: UploadSessions;
  /** Where packs are started (a temporary file)... */
  content: ContentDirectory;
  /** ...and where they are kept once finished. */
  packStorage: PackStorage;
  /** The free-space guard (MIN_FREE_BYTES); none when absent. */
  storage?: Pick<StorageLimits, "minFreeBytes" | "freeBytes">;
}

/**
 * The upload service's storage on the self-hosted platform (the upload service's `UploadStorage`):
 * sessions in the platform database, packs started in the content folder and kept by the pack
 * storage (local folder or object store). Each method hands the call on as it is.
 */
export class SelfHostedUploadStorage {
  constructor(private readonly state: UploadState) {}

  /** The session, or undefined. */
  session(sessionId: string): Promise<SessionRow | undefined> {
    return this.state.sessions.get(sessionId);
  }

  /** What receiving parts needs to know, for a run of the session's hashes from `from` on. */
  partRun(sessionId: string, from: string, limit: number, missingOnly: boolean): Promise<PartRun> {
    return this.state.sessions.partRun(sessionId, from, limit, missingOnly);
  }

  /** How many distinct hashes of the session it does not have yet. */
  missingCount(sessionId: string): Promise<number> {
    return this.state.sessions.missingCount(sessionId);
  }

  /** A pack in a temporary file of the content folder. */
  startPack(): PackWriter {
    return this.state.content.newWriter();
  }

  /** Makes a pack `startPack` started durable in the pack storage. */
  commitPack(pack: PackWriter): Promise<{ id: string; size: number }> {
    return this.state.packStorage.commit(pack);
  }

  /** Records a bucket in one transaction. */
  record(sessionId: string, bucket: ReceivedBucket, now: number): Promise<void> {
    return this.state.sessions.record(sessionId, bucket, now);
  }

  /** True once `incoming` more bytes would leave less than MIN_FREE_BYTES free; false with no guard. */
  async lacksRoomFor(incoming: number): Promise<boolean> {
    const limits = this.state.storage;
    return limits !== undefined && (await lacksRoomFor(limits, incoming));
  }
}
