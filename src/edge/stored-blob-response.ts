import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import type { EdgeBlob, EdgeStorage } from "./edge-storage.js";
import { entityTag, noneMatchHits, type Encoding } from "./negotiation.js";
import { writeHead, type ResponsePlan } from "./response-head.js";
import type { VariantMaker } from "./variants.js";

/**
 * Streams a blob too large for the memory cache from the storage, a byte range of it, or its
 * compressed variant, stored once on the first request that asks for that coding (or, while
 * as many compressions run as may, the blob as it is). When a body is due, the file is opened and
 * its size checked before any header goes out, so a missing or damaged blob still gets a clean 500.
 * A HEAD or a 304 makes nothing: a coding not made yet is announced without Content-Length.
 */
export async function streamBlob(
  req: IncomingMessage,
  res: ServerResponse,
  source: { storage: EdgeStorage; variants: VariantMaker },
  wanted: Encoding,
  plan: ResponsePlan,
): Promise<void> {
  const { file } = plan;
  const bodiless =
    req.method === "HEAD" ||
    plan.range.kind === "unsatisfiable" ||
    (plan.status === 200 && noneMatchHits(req.headers["if-none-match"], entityTag(file.hash, wanted)));
  if (bodiless) {
    const length = wanted === "identity" ? file.size : await source.storage.variantSize(file.hash, wanted);
    writeHead(req, res, plan, wanted, length);
    return;
  }

  let encoding = wanted;
  let variant: EdgeBlob | undefined;
  if (wanted !== "identity") {
    variant = await source.variants.onDisk(file.hash, wanted, file.size);
    if (!variant) encoding = "identity";
  }
  const body = variant ?? (await openBlob(source.storage, file));
  let sent = false;
  try {
    const span = writeHead(req, res, plan, encoding, body.size);
    if (!span) return;
    sent = true;
    await pipeline(body.stream(span.start, span.end), res);
  } catch (error) {
    // A client that goes away mid-body is ordinary; anything else is a read failure worth reporting.
    if (!sent || (error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw error;
  } finally {
    body.close();
  }
}

async function openBlob(storage: EdgeStorage, file: { hash: string; size: number }): Promise<EdgeBlob> {
  const blob = await storage.openBlob(file.hash);
  if (blob.size !== file.size) {
    blob.close();
    throw new Error(`blob ${file.hash} holds ${blob.size} bytes, its row says ${file.size}`);
  }
  return blob;
}
