import type { PartRun, PartState, ReceivedBucket, StoredBlob } from "../core/uploaded-bucket.js";

export type { PartRun, PartState, ReceivedBucket, StoredBlob };

/** A pack being written: blobs appended one after another, kept nowhere until committed. */
export interface PackDraft {
  /** Bytes appended so far: where the next blob starts. */
  readonly length: number;
  /**
   * Appends the bytes: a view of a buffer the caller reuses once this resolves (or returns, when
   * it returns no promise), so never kept.
   */
  append(bytes: Uint8Array): Promise<void> | void;
  /** Drops it: nothing of it was recorded. */
  discard(): Promise<void>;
}

/**
 * What the upload service reads and writes, handed to it (the self-hosted platform gives one over
 * its database and packs, a test one over maps): upload sessions, the packs a bucket's verified
 * blobs go into, and the free-space guard.
 */
export interface UploadStorage {
  /** An upload session and until when it takes uploads (ms since the epoch), or undefined. */
  session(sessionId: string): Promise<{ id: string; expiresAt: number } | undefined>;
  /**
   * What receiving a part needs to know (before its body is read), for up to `limit` of the
   * session's hashes from `from` on in hash order, in one read: all of them, or with
   * `missingOnly` those the session does not have yet.
   */
  partRun(sessionId: string, from: string, limit: number, missingOnly: boolean): Promise<PartRun>;
  /** How many distinct hashes of the session it does not have yet. */
  missingCount(sessionId: string): Promise<number>;
  /** Starts a pack for one bucket's blobs. */
  startPack(): PackDraft;
  /**
   * Makes a pack this storage started durable and returns its id and size; only then may a
   * record name it. On failure the pack is left to the caller to discard.
   */
  commitPack(pack: PackDraft): Promise<{ id: string; size: number }>;
  /** Records what one bucket brought (its pack committed already), all of it or nothing. */
  record(sessionId: string, bucket: ReceivedBucket, now: number): Promise<void>;
  /** True once storing `incoming` more bytes would leave less than the free space kept (MIN_FREE_BYTES). */
  lacksRoomFor(incoming: number): Promise<boolean>;
}

/** Signs and checks the upload service's tokens, each bound to one session and one purpose. */
export interface SessionTokens {
  /** The session id of a valid upload token, or undefined (forged, expired, malformed, other purpose). */
  verify(purpose: "upload", token: string, now: Date): Promise<string | undefined>;
  /** A completion token for the session, good until `expiresAt`. */
  sign(purposes: ["completion"], sessionId: string, accountId: string, expiresAt: Date): Promise<string>;
}
