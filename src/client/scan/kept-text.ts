import { base64Length, WHOLE_READ_BYTES } from "./file-stream.js";
import type { SiteFile } from "./walk-state.js";

/**
 * Base64 text the hashing pass keeps for the upload, at most. The files kept are the smallest: a
 * file's upload costs a few system calls whatever its size, so this much text saves the most reads
 * there: 50% of the files of the deploy bench's 10,000-file / 200 MB site, 66% of its 50,000-file
 * one. More raised the client's peak memory at 50,000 files too near 250 MB (from 162-211 MB: 24
 * MiB 197-242, 48 MiB 261; 12 MiB 180-223).
 */
export const KEEP_TEXT_BYTES = 12 * 1024 * 1024;

/**
 * The base64 text of files read by the hashing pass, kept so that the upload neither reads nor
 * encodes them again. A file kept is uploaded as it was when hashed: the deploy is then a
 * consistent snapshot of the hashing pass, even if the file changed since (unkept files are read
 * again, and one changed since is refused by the server's hash check or FILE_CHANGED here).
 */
export class KeptTexts {
  private readonly texts = new Map<SiteFile, Buffer>();

  constructor(readonly budget: number = KEEP_TEXT_BYTES) {}

  /**
   * Which of `pending` (indexes into `files`) to keep: the smallest first, while their text fits
   * the budget; none over WHOLE_READ_BYTES (those are read whole into one buffer).
   */
  choose(files: readonly SiteFile[], pending: readonly number[]): Set<number> {
    const bySize = pending
      .filter((index) => files[index]!.size <= WHOLE_READ_BYTES)
      .sort((a, b) => files[a]!.size - files[b]!.size);
    const chosen = new Set<number>();
    let room = this.budget;
    for (const index of bySize) {
      const text = base64Length(files[index]!.size);
      if (text > room) break;
      room -= text;
      chosen.add(index);
    }
    return chosen;
  }

  /** Keeps `text`, the base64 of `file` as hashed (a view: the batch's buffer lives while one is kept). */
  keep(file: SiteFile, text: Buffer): void {
    this.texts.set(file, text);
  }

  /** The text kept for `file`, if any. */
  get(file: SiteFile): Buffer | undefined {
    return this.texts.get(file);
  }

  /** Forgets the texts of files uploaded: their memory goes once no file of their batch is kept. */
  release(files: Iterable<SiteFile>): void {
    for (const file of files) this.texts.delete(file);
  }

  /** Files kept. */
  get size(): number {
    return this.texts.size;
  }
}
