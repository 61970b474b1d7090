import { AssetHasher, hashExtension } from "../core/asset-hash.js";
import { base64Chunks, fileBytes } from "./file-stream.js";

/** What a hashing thread is asked to do. */
export interface HashJob {
  id: number;
  absPath: string;
  /** Path inside the site: gives the extension and names the file in errors. */
  path: string;
  size: number;
}

/** Hashes one file with the asset scheme (contract §2), streaming: base64 in chunks, then the extension. */
export async function hashFile(job: Omit<HashJob, "id">): Promise<string> {
  const hasher = await AssetHasher.create();
  for await (const text of base64Chunks(fileBytes(job.absPath, job.path, job.size))) {
    hasher.updateBase64(text);
  }
  return hasher.finish(hashExtension(job.path));
}
