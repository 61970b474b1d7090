import { Readable } from "node:stream";
import { Hono } from "hono";
import type { Logger } from "pino";
import { requestLogger } from "../api/middleware/request-logger.js";
import { UploadError, UploadErrorCode } from "./upload-errors.js";
import type { UploadService } from "./upload-service.js";

/**
 * The upload service's HTTP face, Cloudflare's Workers static-assets upload endpoint kept exact:
 * `POST /accounts/:accountId/workers/assets/upload?base64=true`.
 */
export function createUploadApp(deps: { service: UploadService; logger: Logger }): Hono {
  const app = new Hono();
  app.use(requestLogger(deps.logger));

  app.post("/accounts/:accountId/workers/assets/upload", async (c) => {
    if (c.req.query("base64") !== "true") {
      throw new UploadError(400, UploadErrorCode.badRequest, "only ?base64=true uploads are supported");
    }
    const authorization = c.req.header("authorization");
    const token = /^Bearer (\S+)$/.exec(authorization ?? "")?.[1];
    const raw = c.req.raw.body;
    const body = raw ? Readable.fromWeb(raw as import("node:stream/web").ReadableStream) : Readable.from([]);
    const result = await deps.service.receiveBucket({
      accountId: c.req.param("accountId"),
      token,
      contentType: c.req.header("content-type"),
      body,
    });
    const envelope = { success: true, errors: [], messages: [] };
    return result.status === 201
      ? c.json({ ...envelope, result: { jwt: result.jwt } }, 201)
      : c.json({ ...envelope, result: {} }, 202);
  });

  app.notFound((c) =>
    c.json(
      {
        success: false,
        errors: [{ code: UploadErrorCode.notFound, message: "not found" }],
        messages: [],
        result: null,
      },
      404,
    ),
  );

  app.onError((error, c) => {
    if (error instanceof UploadError) {
      return c.json(
        {
          success: false,
          errors: [{ code: error.code, message: error.message }],
          messages: [],
          result: null,
        },
        error.status,
      );
    }
    deps.logger.error({ err: error, path: c.req.path }, "upload failed");
    return c.json(
      {
        success: false,
        errors: [{ code: UploadErrorCode.internal, message: "internal error" }],
        messages: [],
        result: null,
      },
      500,
    );
  });

  return app;
}
