import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { BlobCache, CachedBlob } from "./blob-cache.js";
import { parseRange, type RangeRequest } from "./byte-range.js";
import { worthCompressing } from "./compression.js";
import { streamBlob } from "./stored-blob-response.js";
import type { EdgeStorage, StoredFile } from "./edge-storage.js";
import { chooseEncoding, entityTag, ifRangeHolds, noneMatchHits, type Encoding } from "./negotiation.js";
import { sendPlain } from "./plain-response.js";
import { hasConditions, onlyNoneMatch, preconditionVerdict } from "./preconditions.js";
import {
  readyHeads,
  representationHeaders,
  sendNotModified,
  sendWhole,
  type ReadyHeads,
} from "./ready-answers.js";
import { writeHead, writeNotModified, type ResponsePlan } from "./response-head.js";
import type { VariantMaker } from "./variants.js";

/**
 * Where blob bytes come from: memory for small blobs, the storage for the rest, and their
 * compressed variants, each made once on demand.
 */
export interface BlobSource {
  cache: BlobCache;
  storage: EdgeStorage;
  variants: VariantMaker;
}

/** How to answer with a file: a 200 with validators and ranges, or a site's 404 page. */
export interface FileAnswer {
  kind: "file";
  file: StoredFile;
  status: 200 | 404;
  /**
   * The response's own fields, decided once per route: content type, caching, Last-Modified, the
   * edge's defaults and what `_headers` sets (names in lowercase). Validators and coding are added
   * per response.
   */
  fields: OutgoingHttpHeaders;
  /** The revision's publish time, in ms: what Last-Modified says and the date preconditions use. */
  lastModified: number;
  /** Its heads that do not depend on the request beyond its coding, once built (see `fileAnswer`). */
  heads?: ReadyHeads;
}

/**
 * An answer meant to be reused across requests (the route memo keeps it): its response heads are
 * computed and checked once per coding, so a hot file costs one `writeHead` with a ready head.
 */
export function fileAnswer(
  file: StoredFile,
  status: 200 | 404,
  fields: OutgoingHttpHeaders,
  lastModified: number,
): FileAnswer {
  const compressible = worthCompressing(file.contentType, file.size);
  return {
    kind: "file",
    file,
    status,
    fields,
    lastModified,
    heads: readyHeads(compressible),
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
  if (heads && req.headers.range === undefined && sentReady(req, res, source, answer, heads)) return;
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
  // Preconditions apply only to a file that exists (RFC 9110 §13.2.1), never to a 404 page.
  if (status === 200) {
    const verdict = preconditionVerdict(req.headers, file.hash, answer.lastModified);
    if (verdict === "failed") return sendPlain(res, 412, "Precondition Failed");
    if (verdict === "not-modified") return writeNotModified(res, plan, wanted);
  }

  const cached = source.cache.get(file.hash);
  if (cached) {
    source.cache.counts.hits++;
    return sendFromMemory(req, res, source, cached, wanted, plan);
  }
  source.cache.counts.misses++;
  if (!source.cache.admits(file.size)) return streamBlob(req, res, source, wanted, plan);
  return source.cache
    .load(file.hash, async () => ({
      body: await source.storage.readBlob(file.hash),
      br: undefined,
      gzip: undefined,
    }))
    .then((blob) => sendFromMemory(req, res, source, blob, wanted, plan));
}

/**
 * Answers the common requests of a blob in memory with ready heads, in one write: no validator
 * (when its wanted coding is made), or a revalidation by entity tag alone, what a browser sends for
 * a page it holds (production pages must be revalidated every time). False, having sent nothing,
 * for anything else, which goes the general way.
 */
function sentReady(
  req: IncomingMessage,
  res: ServerResponse,
  source: BlobSource,
  answer: FileAnswer,
  heads: ReadyHeads,
): boolean {
  const conditional = hasConditions(req.headers);
  if (conditional && (answer.status !== 200 || !onlyNoneMatch(req.headers))) return false;
  const cached = source.cache.get(answer.file.hash);
  if (!cached) return false;
  const wanted = heads.compressible ? chooseEncoding(req.headers["accept-encoding"]) : "identity";
  if (conditional) {
    if (!noneMatchHits(req.headers["if-none-match"], entityTag(answer.file.hash, wanted))) return false;
    source.cache.counts.hits++;
    sendNotModified(res, wanted, answer, heads);
    return true;
  }
  const body = wanted === "identity" ? cached.body : cached[wanted];
  if (!body) return false;
  source.cache.counts.hits++;
  sendWhole(req, res, body, wanted, answer, heads);
  return true;
}

/**
 * Answers from a blob in memory. A coding not made yet is made now, once, unless the request
 * needs no body (HEAD, 304: then Content-Length is left out, as RFC 9110 §9.3.2 allows) or as
 * many compressions run as may (then the blob is sent as it is).
 */
function sendFromMemory(
  req: IncomingMessage,
  res: ServerResponse,
  source: BlobSource,
  blob: CachedBlob,
  wanted: Encoding,
  plan: ResponsePlan,
): void | Promise<void> {
  if (wanted === "identity") return sendBody(req, res, plan, "identity", blob.body);
  const made = blob[wanted];
  if (made) return sendBody(req, res, plan, wanted, made);
  if (
    req.method === "HEAD" ||
    noneMatchHits(req.headers["if-none-match"], entityTag(plan.file.hash, wanted))
  ) {
    writeHead(req, res, plan, wanted, undefined);
    return;
  }
  const making = source.variants.inMemory(plan.file.hash, blob, wanted);
  if (!making) return sendBody(req, res, plan, "identity", blob.body);
  return making.then((variant) => sendBody(req, res, plan, wanted, variant));
}

function sendBody(
  req: IncomingMessage,
  res: ServerResponse,
  plan: ResponsePlan,
  encoding: Encoding,
  body: Buffer,
): void {
  const span = writeHead(req, res, plan, encoding, body.length);
  if (!span) return;
  res.end(span.start === 0 && span.end === body.length - 1 ? body : body.subarray(span.start, span.end + 1));
}

// Node joins repeated headers it does not know into one string; only Set-Cookie stays a list.
function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
