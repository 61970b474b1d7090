import type { Readable } from "node:stream";
import type { PackWriter } from "./pack-writer.js";

/** A pack as stored: its id and when it was written (milliseconds since the epoch). */
export interface StoredPack {
  id: string;
  writtenAt: number;
}

/** Bytes of one pack opened for reading, positions relative to the range opened. Give it back with `close`. */
export interface PackRange {
  /** Bytes `start` to `end`, inclusive, of the range. */
  stream(start: number, end: number): Readable;
  /** The whole range, in memory. */
  readAll(): Promise<Buffer>;
  close(): void;
}

/**
 * Where the bytes of packs live: the local disk, or an object store. A pack is written whole from
 * a finished writer's temporary file and never changes after; it is durable when `commit`
 * resolves, and only then may a row name it. Rows go before their pack is deleted.
 */
export interface PackStorage {
  /** Files in DATA_DIR, or objects in a store other processes may share. */
  readonly kind: "local" | "object-store";
  /**
   * Finishes the writer and makes its bytes the durable pack of a new id, its temporary file
   * taken (moved or removed); returns the id and the size.
   */
  commit(writer: PackWriter): Promise<{ id: string; size: number }>;
  /**
   * Opens `length` bytes of pack `id` from `start`. Rejects with PackMissingError when the pack is
   * gone, with PackDamagedError when it does not hold `packSize` bytes (its row's) or the range.
   */
  openRange(id: string, start: number, length: number, packSize: number | undefined): Promise<PackRange>;
  /** Deletes pack `id`; no row may name it any more. Deleting a pack that is gone succeeds. */
  delete(id: string): Promise<void>;
  /** Every pack stored, for the sweep of packs no row names. */
  list(): Promise<StoredPack[]>;
  /**
   * The packs this process keeps something of for reading (ranges on its disk, open files), so
   * that those another process deleted can be let go of (`forget`).
   */
  keptPacks(): string[];
  /**
   * Lets go of what this process keeps of pack `id` (another process deleted it): its kept ranges
   * and open files. The pack itself is left as it is; a later read finds it, or not, anew.
   */
  forget(id: string): void;
  /** Resolves when the bytes can be reached (for `/healthz`); rejects saying why not. */
  check(): Promise<void>;
  /** Lets go of what is open; reads under way finish. */
  close(): Promise<void>;
}

/** The pack is not there (deleted, or never written). `code` is ENOENT, as for a missing file. */
export class PackMissingError extends Error {
  readonly code = "ENOENT";
}

/** The pack is there but does not hold what its row says. */
export class PackDamagedError extends Error {}

const PACK_ID = /^[0-9a-f]{24}$/;

/** Whether `id` is a well-formed pack id (24 hex digits); only those name files or objects. */
export function isPackId(id: string): boolean {
  return PACK_ID.test(id);
}
