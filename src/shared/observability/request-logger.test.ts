import { Writable } from "node:stream";
import { Hono } from "hono";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { requestLogger, requestOrigin } from "./request-logger.js";

/** An app behind requestLogger whose log lines are collected, and one route that reports its origin. */
function app(): { app: Hono; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const hono = new Hono();
  hono.use(requestLogger(pino(sink)));
  hono.get("/origin", (c) => c.json(requestOrigin(c)));
  hono.post("/teapot", (c) => c.text("no", 418));
  return { app: hono, lines };
}

describe("requestLogger", () => {
  afterEach(() => vi.restoreAllMocks());

  it("requestLogger: one line per request with its id, method, path, status and duration in ms to a tenth", async () => {
    const times = [1000, 1234.5678];
    vi.spyOn(performance, "now").mockImplementation(() => times.shift() ?? 9999);
    const { app: hono, lines } = app();
    const response = await hono.request("/teapot?x=1", { method: "POST" });
    expect(response.status).toBe(418);
    const id = response.headers.get("x-request-id");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: "request",
      requestId: id,
      method: "POST",
      path: "/teapot",
      status: 418,
      ms: 234.6,
    });
  });

  it("requestLogger: a forwarded id of 8 to 128 plain characters is kept, reaches the route and the log", async () => {
    const { app: hono, lines } = app();
    for (const id of ["abcdefgh", "A.b_c:d-1", "x".repeat(128)]) {
      const response = await hono.request("/origin", { headers: { "x-request-id": id } });
      expect(response.headers.get("x-request-id")).toBe(id);
      expect(await response.json()).toEqual({ requestId: id, method: "GET", path: "/origin" });
      expect(lines.at(-1)).toMatchObject({ requestId: id });
    }
  });

  it("requestLogger: a forwarded id too short, too long or with other characters is replaced by a UUID", async () => {
    const { app: hono } = app();
    for (const id of [
      "abcdefg",
      "x".repeat(129),
      "abcdefgh ijk",
      "abcdefgh/ijk",
      "abcdefgh!",
      "abcdefgh\u00e9",
    ]) {
      const response = await hono.request("/origin", { headers: { "x-request-id": id } });
      const given = response.headers.get("x-request-id");
      expect(given, id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(((await response.json()) as { requestId: string }).requestId).toBe(given);
    }
  });

  it("requestLogger: each request without an id gets a UUID of its own", async () => {
    const { app: hono } = app();
    const a = (await hono.request("/origin")).headers.get("x-request-id");
    const b = (await hono.request("/origin")).headers.get("x-request-id");
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).not.toBe(b);
  });
});
