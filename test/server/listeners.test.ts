import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Listener, listen } from "../../src/server/listeners.js";
import { capturingLogger } from "../support/log-lines.js";
import { expectStartingAnswer } from "../support/starting-answer.js";

const TIMEOUTS = { headersMs: 30_000, requestMs: 300_000, keepAliveMs: 5_000 };
const opened: Listener[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((listener) => listener.close()));
});

async function opening(host: string, requireHostHeader?: boolean): Promise<Listener> {
  const listener = await listen(host, 0, {
    timeouts: TIMEOUTS,
    ...(requireHostHeader === undefined ? {} : { requireHostHeader }),
  });
  opened.push(listener);
  return listener;
}

/** The status line of an HTTP/1.1 request written by hand (so it may lack a Host header). */
function statusOf(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ""), () => socket.write(request));
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
      if (text.includes("\r\n")) {
        resolve(text.slice(0, text.indexOf("\r\n")));
        socket.destroy();
      }
    });
    socket.once("error", reject);
  });
}

describe("listen: the process's HTTP listeners", () => {
  it("listen: until a handler is attached, 503 SERVER_STARTING JSON with Retry-After: 1, logged; then the handler answers", async () => {
    const { logger, lines } = capturingLogger();
    const listener = await listen("127.0.0.1", 0, { timeouts: TIMEOUTS, logger });
    opened.push(listener);
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const early = await fetch(`${listener.url}/projects?token=secret`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await expectStartingAnswer(early, lines);
    listener.handle((_req, res) => res.writeHead(204).end());
    expect((await fetch(listener.url)).status).toBe(204);
  });

  it("listen: /health and /healthz say status starting until a handler is attached", async () => {
    const listener = await opening("127.0.0.1");
    for (const path of ["/health", "/healthz"]) {
      const response = await fetch(listener.url + path);
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect(await response.json()).toMatchObject({ status: "starting", error: { code: "SERVER_STARTING" } });
    }
  });

  it("listen: an IPv6 address is printed in brackets in its URL", async () => {
    const listener = await opening("::1");
    expect(listener.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await fetch(listener.url)).status).toBe(503);
  });

  it("listen: a request without Host is refused with 400 unless the listener is told to take it", async () => {
    const strict = await opening("127.0.0.1");
    expect(await statusOf(strict.url, "GET / HTTP/1.1\r\n\r\n")).toBe("HTTP/1.1 400 Bad Request");
    const lenient = await opening("127.0.0.1", false);
    lenient.handle((_req, res) => res.writeHead(404).end());
    expect(await statusOf(lenient.url, "GET / HTTP/1.1\r\n\r\n")).toBe("HTTP/1.1 404 Not Found");
  });

  it("listen: a port already taken rejects rather than hangs", async () => {
    const first = await opening("127.0.0.1");
    const port = Number(new URL(first.url).port);
    await expect(listen("127.0.0.1", port, { timeouts: TIMEOUTS })).rejects.toMatchObject({
      code: "EADDRINUSE",
    });
  });

  it("close: ends with a keep-alive connection open and idle, and the port is free again", async () => {
    const listener = await listen("127.0.0.1", 0, { timeouts: TIMEOUTS });
    listener.handle((_req, res) => res.writeHead(200, { connection: "keep-alive" }).end("ok"));
    const { port } = new URL(listener.url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    const closedByServer = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await listener.close();
    await closedByServer;
    const again = await listen("127.0.0.1", Number(port), { timeouts: TIMEOUTS });
    opened.push(again);
    expect(again.url).toBe(listener.url);
  });

  it("close: waits for a request in flight, then closes its keep-alive connection once it falls idle", async () => {
    // A keep-alive timeout far past the test's: only the close's own sweep can end the connection.
    const listener = await listen("127.0.0.1", 0, { timeouts: { ...TIMEOUTS, keepAliveMs: 600_000 } });
    let answer = (): void => undefined;
    const arrived = new Promise<void>((resolve) =>
      listener.handle((_req, res) => {
        answer = () => res.writeHead(200, { connection: "keep-alive" }).end("ok");
        resolve();
      }),
    );
    const { port } = new URL(listener.url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const closedByServer = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const received = new Promise<string>((resolve) => socket.once("data", (chunk) => resolve(String(chunk))));
    socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await arrived;
    let closed = false;
    const closing = listener.close().then(() => (closed = true));
    // The close waits while the request is in flight...
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    answer();
    // ...and once it is answered, its idle connection is closed and the close ends.
    expect(await received).toMatch(/^HTTP\/1\.1 200 OK/);
    await closing;
    await closedByServer;
  }, 10_000);
});
