import { extname } from "node:path";
import { createBLAKE3 } from "hash-wasm";

/**
 * The contract's asset hash (Cloudflare's Workers-assets scheme): the first 32 hex characters of
 * BLAKE3(base64(bytes) + extension without the dot). Written here so the bench needs nothing of src/.
 */
export async function assetHash(bytes: Buffer, path: string): Promise<string> {
  const hasher = await createBLAKE3();
  hasher.init();
  hasher.update(bytes.toString("base64"));
  hasher.update(extname(path).slice(1));
  return hasher.digest("hex").slice(0, 32);
}
