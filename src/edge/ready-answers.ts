import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { StoredFile } from "./edge-storage.js";
import { entityTag, type Encoding } from "./negotiation.js";
import { readyHead, writeReadyHead, type ReadyHead } from "./ready-head.js";

/** What the heads of an answer with a file are made of (a `FileAnswer`'s own parts). */
export interface AnswerParts {
  file: StoredFile;
  status: 200 | 404;
  fields: OutgoingHttpHeaders;
}

/**
 * The heads of a remembered answer that do not depend on the request beyond its coding: the whole
 * body's (200 or the 404 page's) and the 304's, each built and checked on its first use.
 */
export interface ReadyHeads {
  /** `worthCompressing` of the file, decided once (it parses the media type). */
  compressible: boolean;
  whole: Record<Encoding, ReadyHead | undefined>;
  notModified: Record<Encoding, ReadyHead | undefined>;
}

/** Heads not built yet, for a file that is or is not worth compressing. */
export function readyHeads(compressible: boolean): ReadyHeads {
  return {
    compressible,
    whole: { identity: undefined, br: undefined, gzip: undefined },
    notModified: { identity: undefined, br: undefined, gzip: undefined },
  };
}

/** The representation's fields, common to every answer with a file, on every path. */
export function representationHeaders(answer: AnswerParts, compressible: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { ...answer.fields };
  if (compressible) headers.vary = "Accept-Encoding";
  if (answer.status === 200) headers["accept-ranges"] = "bytes";
  return headers;
}

/**
 * The fields of a 304 in `encoding`: the validator and caching fields, not the representation's
 * metadata. The general path (`writeNotModified`) and the ready 304 both take them from here.
 */
export function notModifiedHeaders(headers: OutgoingHttpHeaders, hash: string, encoding: Encoding): void {
  headers.etag = entityTag(hash, encoding);
  delete headers["content-type"];
  delete headers["accept-ranges"];
}

/** Answers with a whole body from memory: ready heads, one write. */
export function sendWhole(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  encoding: Encoding,
  answer: AnswerParts,
  heads: ReadyHeads,
): void {
  let head = heads.whole[encoding];
  // Blobs never change, so neither do their variants' lengths; the check is only a safeguard.
  if (head === undefined || head.fields["content-length"] !== body.length) {
    head = heads.whole[encoding] = readyHead(wholeHead(answer, heads.compressible, encoding, body.length));
  }
  writeReadyHead(res, answer.status, head);
  if (req.method === "HEAD" || body.length === 0) res.end();
  else res.end(body);
}

/** Answers 304 for the file in `encoding`, with ready heads. */
export function sendNotModified(
  res: ServerResponse,
  encoding: Encoding,
  answer: AnswerParts,
  heads: ReadyHeads,
): void {
  let head = heads.notModified[encoding];
  if (head === undefined) {
    const headers = representationHeaders(answer, heads.compressible);
    notModifiedHeaders(headers, answer.file.hash, encoding);
    head = heads.notModified[encoding] = readyHead(headers);
  }
  writeReadyHead(res, 304, head);
  res.end();
}

// The same fields, in the same order, as the general path (`sendFile` then `writeHead`) sends.
function wholeHead(
  answer: AnswerParts,
  compressible: boolean,
  encoding: Encoding,
  length: number,
): OutgoingHttpHeaders {
  const headers = representationHeaders(answer, compressible);
  if (answer.status === 200) headers.etag = entityTag(answer.file.hash, encoding);
  if (encoding !== "identity") headers["content-encoding"] = encoding;
  headers["content-length"] = length;
  return headers;
}
