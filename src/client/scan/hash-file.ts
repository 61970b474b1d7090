import { AssetHasher, hashExtension } from "../../core/asset-hash.js";
import {
  base64Chunks,
  base64Length,
  fileBytes,
  readWholeInto,
  SMALL_FILE_BYTES,
  writeBase64,
} from "./file-stream.js";

/** What a hashing thread is asked to do. */
export interface HashJob {
  id: number;
  absPath: string;
  /** Path inside the site: gives the extension and names the file in errors. */
  path: string;
  size: number;
  /** Keep the file's base64 text for the upload (`KeptTexts`): only for files up to SMALL_FILE_BYTES. */
  keep?: boolean;
}

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

  /**
   * The asset hash of one file (contract §2); a size other than `job.size` is FILE_CHANGED. With
   * `keepInto` (exactly the text's length; a file up to SMALL_FILE_BYTES), its base64 text is made
   * there, and left there for the upload.
   */
  async hash(job: Omit<HashJob, "id">, keepInto?: Buffer): Promise<string> {
    if (job.size > SMALL_FILE_BYTES) return this.hashStreamed(job);
    const length = readWholeInto(job.absPath, job.path, job.size, this.bytes);
    const into = keepInto ?? this.text;
    const textLength = writeBase64(this.bytes, length, into, 0);
    this.hasher.reset().updateBase64(into.subarray(0, textLength));
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
