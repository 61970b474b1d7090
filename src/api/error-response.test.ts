import { Writable } from "node:stream";
import { Hono } from "hono";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import {
  DatabaseUnavailableError,
  DomainTakenError,
  InternalError,
  InvalidRequestError,
  ObjectStoreUnavailableError,
  ProjectNotFoundError,
  QuotaExceededError,
  RateLimitedError,
  ServerBusyError,
  UploadPlatformError,
} from "../core/errors.js";
import { errorResponse } from "./error-response.js";

interface LogLine {
  level: number;
  msg: string;
  method?: string;
  path?: string;
  err?: { message?: string };
}

/** An app whose one route throws `error`, answered by errorResponse; its log lines are collected. */
async function answer(error: unknown): Promise<{ response: Response; lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const logger = pino(sink);
  const app = new Hono();
  app.post("/fail", () => {
    throw error;
  });
  app.onError((thrown, c) => errorResponse(thrown, c, logger));
  const response = await app.request("/fail", { method: "POST" });
  return { response, lines };
}

describe("errorResponse", () => {
  it("errorResponse: a client error answers its status and { error: { code, message } }, logs nothing and sets no Retry-After", async () => {
    const { response, lines } = await answer(new ProjectNotFoundError());
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: { code: "PROJECT_NOT_FOUND", message: "project not found" },
    });
    expect(response.headers.get("retry-after")).toBeNull();
    expect(lines).toEqual([]);
    const invalid = await answer(new InvalidRequestError("bad field"));
    expect(invalid.response.status).toBe(400);
    expect(await invalid.response.json()).toEqual({
      error: { code: "INVALID_REQUEST", message: "bad field" },
    });
  });

  it("errorResponse: a 5xx domain error is logged as an error with its cause, the method and the path; the body has the message only", async () => {
    const cause = new Error("secret detail");
    const { response, lines } = await answer(
      new UploadPlatformError("the upload platform failed", { cause }),
    );
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({
      error: { code: "UPLOAD_PLATFORM_ERROR", message: "the upload platform failed" },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: "UPLOAD_PLATFORM_ERROR",
      method: "POST",
      path: "/fail",
      // pino's error serializer adds the cause's message: the log has what the body leaves out.
      err: { message: "the upload platform failed: secret detail" },
    });
    // A status of exactly 500 is a failure too.
    const internal = await answer(new InternalError());
    expect(internal.response.status).toBe(500);
    expect(internal.lines).toEqual([expect.objectContaining({ level: 50, msg: "INTERNAL" })]);
  });

  it("errorResponse: a full body budget (SERVER_BUSY) is a warning without the error, with Retry-After", async () => {
    const { response, lines } = await answer(new ServerBusyError(7));
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("SERVER_BUSY");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, msg: "SERVER_BUSY", method: "POST", path: "/fail" });
    expect(lines[0]!.err).toBeUndefined();
  });

  it("errorResponse: RATE_LIMITED, DATABASE_UNAVAILABLE and OBJECT_STORE_UNAVAILABLE carry Retry-After with their seconds", async () => {
    const limited = await answer(new RateLimitedError(42));
    expect(limited.response.status).toBe(429);
    expect(limited.response.headers.get("retry-after")).toBe("42");
    expect(limited.lines).toEqual([]);
    const database = await answer(new DatabaseUnavailableError());
    expect(database.response.status).toBe(503);
    expect(database.response.headers.get("retry-after")).toBe("5");
    const objects = new ObjectStoreUnavailableError();
    const store = await answer(objects);
    expect(store.response.status).toBe(503);
    expect(store.response.headers.get("retry-after")).toBe(String(objects.retryAfterSeconds));
    expect(((await store.response.json()) as { error: { code: string } }).error.code).toBe(
      "OBJECT_STORE_UNAVAILABLE",
    );
  });

  it("errorResponse: QUOTA_EXCEEDED names the quota, its limit and what is left beside the message", async () => {
    const { response } = await answer(new QuotaExceededError("pending", 1000, 250, "over the pending quota"));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: {
        code: "QUOTA_EXCEEDED",
        message: "over the pending quota",
        quota: "pending",
        limitBytes: 1000,
        remainingBytes: 250,
      },
    });
  });

  it("errorResponse: DOMAIN_TAKEN carries the TXT record that would prove control, and only when there is one", async () => {
    const txtRecord = { type: "TXT" as const, name: "_deploy.example.com", value: "proof" };
    const withProof = await answer(new DomainTakenError("taken", { txtRecord }));
    expect(withProof.response.status).toBe(409);
    expect(await withProof.response.json()).toEqual({
      error: { code: "DOMAIN_TAKEN", message: "taken", txtRecord },
    });
    const without = await answer(new DomainTakenError("taken"));
    expect(await without.response.json()).toEqual({ error: { code: "DOMAIN_TAKEN", message: "taken" } });
  });

  it("errorResponse: a client gone mid-request answers 499 with no body, logged at info as the client's doing", async () => {
    const gone = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    const { response, lines } = await answer(gone);
    expect(response.status).toBe(499);
    expect(await response.text()).toBe("");
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: "client aborted the request",
        method: "POST",
        path: "/fail",
      }),
    ]);
  });

  it("errorResponse: any other error answers 500 INTERNAL without its message, and is logged as an error with it", async () => {
    const { response, lines } = await answer(new Error("database file is locked at /secret/path"));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "unexpected error",
        method: "POST",
        path: "/fail",
        err: expect.objectContaining({ message: "database file is locked at /secret/path" }),
      }),
    ]);
  });
});
