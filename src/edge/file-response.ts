import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { BlobStore } from "../platform/local/blob-store.js";
import type { BlobCache, CachedBlob } from "./blob-cache.js";
import { parseRange, type RangeRequest } from "./byte-range.js";
import { loadBlobBody, worthCompressing } from "./compression.js";
import { streamBlob } from "./disk-response.js";
import { chooseEncoding, entityTag, ifRangeHolds, type Encoding } from "./negotiation.js";
import { ALWAYS } from "./plain-response.js";
import { writeHead, type ResponsePlan } from "./response-head.js";
import type { StoredFile } from "../platform/local/published-sites.js";

/** Where blob bytes come from: memory for small blobs, the blob store's files for the rest. */
export interface BlobSource {
  cache: BlobCache;
  blobs: BlobStore;
}

/** How to answer with a file: a 200 with validators and ranges, or a site's 404 page. */
export interface FileAnswer {
  file: StoredFile;
  status: 200 | 404;
  cacheControl: string;
  /** Response heads of whole bodies from memory, by coding, once built (see `fileAnswer`). */
  heads?: WholeHeads;
}

/** The heads of a whole response in each coding; a coding's entry is built on its first use. */
interface WholeHeads {
  /** `worthCompressing` of the file, decided once (it parses the media type). */
  compressible: boolean;
  identity: OutgoingHttpHeaders | undefined;
  br: OutgoingHttpHeaders | undefined;
  gzip: OutgoingHttpHeaders | undefined;
}

/**
 * An answer meant to be reused across requests (the route memo keeps it): its response heads are
 * computed once per coding, so a hot file costs one `writeHead` with a ready object.
 */
export function fileAnswer(file: StoredFile, status: 200 | 404, cacheControl: string): FileAnswer {
  const compressible = worthCompressing(file.contentType, file.size);
  return {
    file,
    status,
    cacheControl,
    heads: { compressible, identity: undefined, br: undefined, gzip: undefined },
  };
}

const WHOLE: RangeRequest = { kind: "whole" };

/**
 * Answers with a stored file: content type, validators, conditional and range requests, content
 * coding. A small blob is answered from memory; it returns a promise only when it must wait for
 * the disk, so a hot file is answered within the request's own tick.
 */
export function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  source: BlobSource,
  answer: FileAnswer,
): void | Promise<void> {
  const { file, status, heads } = answer;
  // The common request (no range, no validator) of a blob in memory: ready heads, one write.
  if (heads && req.headers.range === undefined && req.headers["if-none-match"] === undefined) {
    const cached = source.cache.get(file.hash);
    if (cached) {
      const wanted = heads.compressible ? chooseEncoding(req.headers["accept-encoding"]) : "identity";
      return sendWhole(req, res, cached, wanted, answer, heads);
    }
  }
  const compressible = worthCompressing(file.contentType, file.size);
  // Ranges and validators belong to the file itself; a 404 page stands in for a missing one.
  const rangeable =
    status === 200 &&
    req.method === "GET" &&
    req.headers.range !== undefined &&
    ifRangeHolds(singleHeader(req.headers["if-range"]), entityTag(file.hash, "identity"));
  const range = rangeable ? parseRange(req.headers.range, file.size) : WHOLE;
  const wanted: Encoding =
    compressible && range.kind === "whole" ? chooseEncoding(req.headers["accept-encoding"]) : "identity";
  const plan: ResponsePlan = { file, status, range, headers: representationHeaders(answer, compressible) };

  const cached = source.cache.get(file.hash);
  if (cached) return sendFromMemory(req, res, cached, wanted, plan);
  const path = source.blobs.pathOf(file.hash);
  if (!source.cache.admits(file.size)) return streamBlob(req, res, path, wanted, plan);
  return source.cache
    .load(file.hash, () => loadBlobBody(path, file.size, file.contentType))
    .then((blob) => sendFromMemory(req, res, blob, wanted, plan));
}

function sendFromMemory(
  req: IncomingMessage,
  res: ServerResponse,
  blob: CachedBlob,
  wanted: Encoding,
  plan: ResponsePlan,
): void {
  const { encoding, body } = variantOf(blob, wanted);
  const span = writeHead(req, res, plan, encoding, body.length);
  if (!span) return;
  res.end(span.start === 0 && span.end === body.length - 1 ? body : body.subarray(span.start, span.end + 1));
}

function sendWhole(
  req: IncomingMessage,
  res: ServerResponse,
  blob: CachedBlob,
  wanted: Encoding,
  answer: FileAnswer,
  heads: WholeHeads,
): void {
  const { encoding, body } = variantOf(blob, wanted);
  let head = heads[encoding];
  // Blobs never change, so neither do their variants' lengths; the check is only a safeguard.
  if (head === undefined || head["content-length"] !== body.length) {
    head = heads[encoding] = wholeHead(answer, heads.compressible, encoding, body.length);
  }
  res.writeHead(answer.status, head);
  if (req.method === "HEAD" || body.length === 0) res.end();
  else res.end(body);
}

/** The variant a blob in memory answers with: a coding's body is missing when it was not smaller. */
function variantOf(blob: CachedBlob, wanted: Encoding): { encoding: Encoding; body: Buffer } {
  if (wanted === "br" && blob.br) return { encoding: "br", body: blob.br };
  if (wanted === "gzip" && blob.gzip) return { encoding: "gzip", body: blob.gzip };
  return { encoding: "identity", body: blob.body };
}

/** The representation's fields, common to every answer with a file, on both paths. */
function representationHeaders(answer: FileAnswer, compressible: boolean): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {
    ...ALWAYS,
    "content-type": answer.file.contentType,
    "cache-control": answer.cacheControl,
  };
  if (compressible) headers.vary = "Accept-Encoding";
  if (answer.status === 200) headers["accept-ranges"] = "bytes";
  return headers;
}

// The same fields, in the same order, as the general path (`sendFile` then `writeHead`) sends.
function wholeHead(
  answer: FileAnswer,
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

// Node joins repeated headers it does not know into one string; only Set-Cookie stays a list.
function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
