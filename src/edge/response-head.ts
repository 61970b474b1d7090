import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { contentRange, unsatisfiedRange, type RangeRequest } from "./byte-range.js";
import { entityTag, noneMatchHits, type Encoding } from "./negotiation.js";
import { sendPlain } from "./plain-response.js";
import { notModifiedHeaders } from "./ready-answers.js";
import type { StoredFile } from "./edge-storage.js";

/** The decisions taken from the request before any byte is read. */
export interface ResponsePlan {
  file: StoredFile;
  status: 200 | 404;
  range: RangeRequest;
  headers: OutgoingHttpHeaders;
}

/** What is left to send once the headers are written: a span of bytes (inclusive), or nothing. */
export type BodySpan = { start: number; end: number } | undefined;

/** Answers 304: the validator and caching fields of the chosen coding, not the representation's metadata. */
export function writeNotModified(res: ServerResponse, plan: ResponsePlan, encoding: Encoding): void {
  const { headers } = plan;
  notModifiedHeaders(headers, plan.file.hash, encoding);
  res.writeHead(304, headers);
  res.end();
}

/**
 * Writes the status and headers for the chosen coding: 304 on a matching If-None-Match (checked
 * before Range, as RFC 9110 §13.2.2 orders), 416, 206 or the status of the plan. Returns the span
 * of the encoded body still to send, or undefined when the response is already complete.
 * `length` is the encoded length when known (a coding streamed on the fly has none).
 */
export function writeHead(
  req: IncomingMessage,
  res: ServerResponse,
  plan: ResponsePlan,
  encoding: Encoding,
  length: number | undefined,
): BodySpan {
  const { file, headers, range } = plan;
  if (plan.status === 200) {
    headers.etag = entityTag(file.hash, encoding);
    if (noneMatchHits(req.headers["if-none-match"], headers.etag)) {
      writeNotModified(res, plan, encoding);
      return undefined;
    }
  }
  if (range.kind === "unsatisfiable") {
    sendPlain(res, 416, "Range Not Satisfiable", {
      "content-range": unsatisfiedRange(file.size),
      "accept-ranges": "bytes",
    });
    return undefined;
  }
  let status: number = plan.status;
  let span: BodySpan = length === undefined ? { start: 0, end: Infinity } : { start: 0, end: length - 1 };
  if (range.kind === "range") {
    status = 206;
    span = { start: range.start, end: range.end };
    headers["content-range"] = contentRange(range.start, range.end, file.size);
  }
  if (encoding !== "identity") headers["content-encoding"] = encoding;
  if (length !== undefined) headers["content-length"] = span.end - span.start + 1;
  res.writeHead(status, headers);
  if (req.method === "HEAD" || length === 0) {
    res.end();
    return undefined;
  }
  return span;
}
