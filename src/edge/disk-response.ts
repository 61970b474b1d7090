import { openSized } from "../shared/sized-file.js";
import type { Readable } from "node:stream";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { type BlobReader, closingAfterStreams, RangeStream } from "../platform/selfhost/index.js";
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
  source: { reader: BlobReader; variants: VariantMaker },
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
  let variant: string | undefined;
  if (wanted !== "identity") {
    variant = await source.variants.onDisk(file.hash, wanted, file.size);
    if (!variant) encoding = "identity";
  }
  const body = variant === undefined ? await openBlob(source.reader, file) : await openVariant(variant);
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

/** What a body is streamed from: a blob in its pack, or a variant's file. */
interface Body {
  size: number;
  stream(start: number, end: number): Readable;
  close(): void;
}

async function openBlob(reader: BlobReader, file: { hash: string; size: number }): Promise<Body> {
  const blob = await reader.open(file.hash);
  if (blob.size !== file.size) {
    blob.close();
    throw new Error(`blob ${file.hash} holds ${blob.size} bytes, its row says ${file.size}`);
  }
  return blob;
}

async function openVariant(path: string): Promise<Body> {
  const { file: handle, size } = await openSized(path);
  const range = closingAfterStreams(
    (start, end) => new RangeStream(handle, start, end),
    () => void handle.close().catch(() => undefined),
  );
  return { size, ...range };
}
