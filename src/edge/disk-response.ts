import { open } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { BlobStore } from "../platform/local/blob-store.js";
import { entityTag, noneMatchHits, type Encoding } from "./negotiation.js";
import { writeHead, type ResponsePlan } from "./response-head.js";
import type { VariantMaker } from "./variants.js";

/**
 * Streams a blob too large for the memory cache from its file, a byte range of it, or its
 * compressed variant's file, made once on the first request that asks for that coding (or, while
 * as many compressions run as may, the blob as it is). When a body is due, the file is opened and
 * its size checked before any header goes out, so a missing or damaged blob still gets a clean 500.
 * A HEAD or a 304 makes nothing: a coding not made yet is announced without Content-Length.
 */
export async function streamBlob(
  req: IncomingMessage,
  res: ServerResponse,
  source: { blobs: BlobStore; variants: VariantMaker },
  wanted: Encoding,
  plan: ResponsePlan,
): Promise<void> {
  const { file } = plan;
  const bodiless =
    req.method === "HEAD" ||
    plan.range.kind === "unsatisfiable" ||
    (plan.status === 200 && noneMatchHits(req.headers["if-none-match"], entityTag(file.hash, wanted)));
  if (bodiless) {
    const length = wanted === "identity" ? file.size : await source.variants.existingSize(file.hash, wanted);
    writeHead(req, res, plan, wanted, length);
    return;
  }

  let encoding = wanted;
  let path = source.blobs.pathOf(file.hash);
  if (wanted !== "identity") {
    const variant = await source.variants.onDisk(file.hash, wanted, file.size);
    if (variant) path = variant;
    else encoding = "identity";
  }
  const handle = await open(path, "r");
  let size: number;
  try {
    size = (await handle.stat()).size;
    if (encoding === "identity" && size !== file.size)
      throw new Error(`blob ${path} holds ${size} bytes, its row says ${file.size}`);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const span = writeHead(req, res, plan, encoding, size);
  if (!span) {
    await handle.close();
    return;
  }
  // The stream owns the handle from here and closes it on end, error or destroy.
  const body = handle.createReadStream({ start: span.start, end: span.end });
  try {
    await pipeline(body, res);
  } catch (error) {
    // A client that goes away mid-body is ordinary; anything else is a read failure worth reporting.
    if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw error;
  }
}
