import { closeSync, openSync, readSync } from "node:fs";
import { AssetHasher, hashExtension } from "../../core/asset-hash.js";
import { CliError } from "../errors.js";
import { base64Chunks, base64Length, fileBytes, fileChangedError } from "./file-stream.js";

/** What a hashing thread is asked to do. */
export interface HashJob {
  id: number;
  absPath: string;
  /** Path inside the site: gives the extension and names the file in errors. */
  path: string;
  size: number;
}

/** Files up to this size are read in one call and hashed in one update; larger ones are streamed. */
export const SMALL_FILE_BYTES = 1024 * 1024;

/**
 * Hashes file after file with one BLAKE3 instance (reset between files). Not for concurrent use:
 * await each `hash` before the next.
 */
export class FileHasher {
  /** Holds the bytes of one small file (and one byte more, to see it grew). */
  private readonly bytes = Buffer.allocUnsafe(SMALL_FILE_BYTES + 1);
  /** Holds the base64 of one small file. */
  private readonly text = Buffer.allocUnsafe(base64Length(SMALL_FILE_BYTES));

  private constructor(private readonly hasher: AssetHasher) {}

  /** A hasher with its own WebAssembly instance. */
  static async create(): Promise<FileHasher> {
    return new FileHasher(await AssetHasher.create());
  }

  /** The asset hash of one file (contract §2); a size other than `job.size` is FILE_CHANGED. */
  async hash(job: Omit<HashJob, "id">): Promise<string> {
    if (job.size > SMALL_FILE_BYTES) return this.hashStreamed(job);
    const length = readWhole(job, this.bytes);
    const textLength = this.text.write(this.bytes.toString("base64", 0, length), 0, "latin1");
    this.hasher.reset().updateBase64(this.text.subarray(0, textLength));
    return this.hasher.finish(hashExtension(job.path));
  }

  private async hashStreamed(job: Omit<HashJob, "id">): Promise<string> {
    this.hasher.reset();
    for await (const text of base64Chunks(fileBytes(job.absPath, job.path, job.size))) {
      this.hasher.updateBase64(text);
    }
    return this.hasher.finish(hashExtension(job.path));
  }
}

/** Reads a small file into `into` with synchronous calls; returns its length, checked against job.size. */
function readWhole(job: Omit<HashJob, "id">, into: Buffer): number {
  let fd: number;
  try {
    fd = openSync(job.absPath, "r");
  } catch (error) {
    throw readFailed(job.path, error);
  }
  let total = 0;
  try {
    for (;;) {
      const read = readSync(fd, into, total, job.size + 1 - total, null);
      total += read;
      if (read === 0 || total > job.size) break;
    }
  } catch (error) {
    throw readFailed(job.path, error);
  } finally {
    closeSync(fd);
  }
  if (total !== job.size) throw fileChangedError(job.path, job.size);
  return total;
}

function readFailed(label: string, error: unknown): CliError {
  return new CliError("READ_FAILED", `cannot read ${label}: ${(error as Error).message}`);
}
