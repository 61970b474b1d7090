import { open } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { compressorFor } from "./compression.js";
import { entityTag, noneMatchHits, type Encoding } from "./negotiation.js";
import { writeHead, type ResponsePlan } from "./response-head.js";

/**
 * Streams a blob too large for the memory cache from its file, a byte range of it, or the whole of
 * it compressed on the fly (no Content-Length then). When a body is due, the file is opened and its
 * size checked before any header goes out, so a missing or damaged blob still gets a clean 500.
 */
export async function streamBlob(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  encoding: Encoding,
  plan: ResponsePlan,
): Promise<void> {
  const { file } = plan;
  const length = encoding === "identity" ? file.size : undefined;
  const bodiless =
    req.method === "HEAD" ||
    plan.range.kind === "unsatisfiable" ||
    (plan.status === 200 && noneMatchHits(req.headers["if-none-match"], entityTag(file.hash, encoding)));
  if (bodiless) {
    writeHead(req, res, plan, encoding, length);
    return;
  }

  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    if (size !== file.size) throw new Error(`blob ${path} holds ${size} bytes, its row says ${file.size}`);
  } catch (error) {
    await handle.close();
    throw error;
  }
  const span = writeHead(req, res, plan, encoding, length);
  if (!span) {
    await handle.close();
    return;
  }
  // The stream owns the handle from here and closes it on end, error or destroy.
  const source =
    encoding === "identity"
      ? handle.createReadStream({ start: span.start, end: span.end })
      : handle.createReadStream();
  try {
    if (encoding === "identity") await pipeline(source, res);
    else await pipeline(source, compressorFor(encoding, file.size), res);
  } catch (error) {
    // A client that goes away mid-body is ordinary; anything else is a read failure worth reporting.
    if ((error as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw error;
  }
}
