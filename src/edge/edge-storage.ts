import type { Readable, Writable } from "node:stream";
import type { SiteTarget, StoredFile } from "../core/published-site.js";
import type { CompiledRules } from "../core/site-rules/index.js";
import type { Coding } from "./compression.js";

export type { SiteTarget, StoredFile };

/** A blob or a variant opened for reading: ranges of it as streams, until `close`. */
export interface EdgeBlob {
  readonly size: number;
  /** Bytes `start` to `end`, inclusive. */
  stream(start: number, end: number): Readable;
  /** Lets go of it once the streams made of it are done. */
  close(): void;
}

/**
 * Everything the edge reads and keeps, handed to it (the self-hosted platform gives one over its
 * database and content, a test one over maps): the published manifest, the blobs, and a place for
 * the compressed variants of large blobs. The edge keeps its own memory caches in front of it.
 */
export interface EdgeStorage {
  /**
   * The revision a Host header value (as sent: any case, maybe a port) serves now, or undefined
   * when no live site answers on it. A new object after any change of what it serves: the edge
   * keys its route memo on it. A storage that knows the answer already may give it without a
   * promise: the edge then answers a remembered route within the request's own tick.
   */
  lookupSite(host: string): SiteTarget | undefined | Promise<SiteTarget | undefined>;
  /** The file at `path` (site-relative, starting with `/`, decoded) of a revision, or undefined. */
  findFile(projectSlug: string, revisionId: string, path: string): Promise<StoredFile | undefined>;
  /** A revision's `_redirects` and `_headers`, compiled (none: rules that are `empty`). */
  rulesOf(projectSlug: string, revisionId: string): Promise<CompiledRules>;

  /** The whole blob, in memory (for blobs small enough for the edge's memory cache). */
  readBlob(hash: string): Promise<Buffer>;
  /**
   * Opens a blob for streaming, checking before any byte is sent that all of it is there, so a
   * damaged blob gets a clean error response rather than a cut one.
   */
  openBlob(hash: string): Promise<EdgeBlob>;

  /** The size of a blob's stored variant in `coding`, or undefined when none is stored. */
  variantSize(hash: string, coding: Coding): Promise<number | undefined>;
  /** Opens a blob's stored variant in `coding`, or undefined when none is stored. */
  openVariant(hash: string, coding: Coding): Promise<EdgeBlob | undefined>;
  /**
   * Stores a blob's variant: `fill` writes it whole into `sink` and resolves once it is written;
   * only then is it stored (never half of one). A variant is a cache: it may be dropped any time.
   */
  storeVariant(hash: string, coding: Coding, fill: (sink: Writable) => Promise<void>): Promise<void>;
}
