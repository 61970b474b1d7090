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
