// What the upload service and the platform that keeps its sessions tell each other about a bucket.

/** What receiving a part needs to know before its body is read. */
export interface PartState {
  /** A manifest path naming the hash in the session and its declared size; undefined if none. */
  asset: { path: string; size: number } | undefined;
  /** The session has the content already (uploaded before, or its project's). */
  inSession: boolean;
  /** The platform holds the blob whole, for some project. */
  held: boolean;
}

/**
 * What a session says of a run of its hashes: those from a given hash on, in hash order, at most
 * as many as asked (all of them, or only those it does not have yet). A part is then looked up in
 * a map, and a bucket's parts (a range of hashes: prepare groups them so) cost a statement or two.
 */
export interface PartRun {
  /** Each hash of the run, with what receiving it needs to know (`asset` always set). */
  parts: Map<string, PartState>;
  /**
   * The last hash the run covers: a hash from the first asked to this one that `parts` lacks is
   * none of the session's (of the kind asked). Undefined when the run reached the session's last.
   */
  through: string | undefined;
}

/** A blob a bucket stored: its bytes are `size` bytes from `offset` of the bucket's pack. */
export interface StoredBlob {
  hash: string;
  size: number;
  offset: number;
}

/**
 * What one bucket request verified: the pack it wrote (durable already) with the blobs in it,
 * content whose blob was held already (verified all the same), and media types its parts declared.
 */
export interface ReceivedBucket {
  pack?: { id: string; size: number; blobs: StoredBlob[] };
  /** Hashes whose bytes were verified but not stored again: the platform held them. */
  alreadyHeld?: string[];
  mediaTypes: { hash: string; mediaType: string }[];
}
