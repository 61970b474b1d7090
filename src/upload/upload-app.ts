import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { Hono } from "hono";
import type { Logger } from "pino";
import { requestLogger, requestOrigin } from "../shared/observability/request-logger.js";
import { isDatabaseUnavailable } from "../shared/database/postgres-errors.js";
import type { Metrics } from "../shared/observability/metrics.js";
import { requestMetrics } from "../shared/observability/request-metrics.js";
import { bearerToken } from "../shared/bearer.js";
import { isClientAbort } from "../shared/client-abort.js";
import { type BodyPace, pacedBody } from "../shared/body-pace.js";
import { UploadError, UploadErrorCode, databaseUnavailable, requestTimeout } from "./upload-errors.js";
import type { UploadService } from "./upload-service.js";

/**
 * The upload service's HTTP face, Cloudflare's Workers static-assets upload endpoint kept exact:
 * `POST /accounts/:accountId/workers/assets/upload?base64=true`.
 */
export function createUploadApp(deps: {
  service: UploadService;
  logger: Logger;
  metrics?: Metrics;
  /** The slowest a bucket body may arrive before it is cut off with 408; without it, no minimum. */
  bodyPace?: BodyPace;
}): Hono {
  const app = new Hono();
  app.use(requestLogger(deps.logger));
  if (deps.metrics) app.use(requestMetrics(deps.metrics, "upload"));

  app.post("/accounts/:accountId/workers/assets/upload", async (c) => {
    if (c.req.query("base64") !== "true") {
      throw new UploadError(400, UploadErrorCode.badRequest, "only ?base64=true uploads are supported");
    }
    const token = bearerToken(c.req.header("authorization"));
    const raw = requestBody(c.env, () => c.req.raw.body);
    const stream = deps.bodyPace ? pacedBody(raw, deps.bodyPace, () => requestTimeout(deps.bodyPace!)) : raw;
    const received = { bytes: 0 };
    const body = countBytes(stream, received);
    const result = await deps.service.receiveBucket({
      accountId: c.req.param("accountId"),
      token,
      contentType: c.req.header("content-type"),
      contentLength: declaredLength(c.req.header("content-length")),
      body,
    });
    deps.metrics?.uploadedBytes.inc(received.bytes);
    const envelope = { success: true, errors: [], messages: [] };
    return result.status === 201
      ? c.json({ ...envelope, result: { jwt: result.jwt } }, 201)
      : c.json({ ...envelope, result: {} }, 202);
  });

  // Answered, not thrown: a throw here passes by the metrics middleware before onError makes it a
  // 404, and the request was counted as a 200 (issue 31, L5).
  app.notFound((c) => c.json(failure(new UploadError(404, UploadErrorCode.notFound, "not found")), 404));

  app.onError((error, c) => {
    // Refused before its body had all arrived: the connection cannot carry another request, so
    // the answer says so. Without it, a client that reuses connections (fetch) sent its next
    // request on this one and got ECONNRESET.
    if (incomingOf(c.env)?.complete === false) {
      c.header("Connection", "close");
    }
    if (isClientAbort(error)) {
      // The client went away mid-bucket (what it sent in full is kept); nobody is left to answer.
      deps.logger.info(requestOrigin(c), "client aborted the request");
      return new Response(null, { status: 499 });
    }
    if (!(error instanceof UploadError) && isDatabaseUnavailable(error)) {
      // An outage, not a bug: a warning, and a 503 the client retries after a moment.
      deps.logger.warn({ ...requestOrigin(c), reason: (error as Error).message }, "database unavailable");
      c.header("Retry-After", "1");
      return c.json(failure(databaseUnavailable()), 503);
    }
    if (!(error instanceof UploadError))
      deps.logger.error({ err: error, ...requestOrigin(c) }, "upload failed");
    const known =
      error instanceof UploadError ? error : new UploadError(500, UploadErrorCode.internal, "internal error");
    return c.json(failure(known), known.status);
  });

  return app;
}

/** Cloudflare's error envelope. */
function failure(error: UploadError) {
  return {
    success: false,
    errors: [{ code: error.code, message: error.message }],
    messages: [],
    result: null,
  };
}

/** A Content-Length header as a number of bytes, or undefined when absent or malformed. */
function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/**
 * The request's body as Node gives it: behind @hono/node-server, the IncomingMessage itself, not
 * the web stream made from it and then made into a Node stream again (two adapters per chunk
 * were a tenth of the upload service's time). `app.request()` in a test has only the web body.
 */
function requestBody(
  env: unknown,
  webBody: () => ReadableStream<Uint8Array> | null,
): AsyncIterable<Uint8Array> {
  const incoming = incomingOf(env);
  // Asked for only without it: reading the web body starts consuming the IncomingMessage.
  if (incoming) return incoming;
  const raw = webBody();
  return raw ? Readable.fromWeb(raw as import("node:stream/web").ReadableStream) : Readable.from([]);
}

/** The Node request behind a Hono context's `env`, under @hono/node-server; undefined otherwise. */
function incomingOf(env: unknown): IncomingMessage | undefined {
  return (env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** Passes a body through, adding up its bytes as they go by. */
async function* countBytes(
  body: AsyncIterable<Uint8Array>,
  into: { bytes: number },
): AsyncIterable<Uint8Array> {
  for await (const chunk of body) {
    into.bytes += chunk.length;
    yield chunk;
  }
}
