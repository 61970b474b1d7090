import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What the proxy does with one request; `late` runs `onLate` first (a test moves its server's clock
 * past a deadline), then passes; `stall` passes the headers and the body's first 16 KiB, then sends
 * the server nothing more (it judges the pace) and relays its answer.
 */
export type Fault = "drop" | "503" | "429" | "401" | "400" | "late" | "stall" | "pass";

/** A proxy on 127.0.0.1 that the test scripts: each request takes the next fault of `plan`, then passes. */
export interface FaultProxy {
  url: string;
  target: string;
  plan: Fault[];
  /** Run when a `late` request arrives, before it passes. */
  onLate: () => void;
  /** What each request met, in order. */
  log: Fault[];
  close(): Promise<void>;
}

/** Starts the proxy; set `target` (the upstream base URL) before traffic arrives. */
export async function startFaultProxy(): Promise<FaultProxy> {
  const proxy: FaultProxy = {
    url: "",
    target: "",
    plan: [],
    onLate: () => undefined,
    log: [],
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const fault = proxy.plan.shift() ?? "pass";
    proxy.log.push(fault);
    if (fault === "pass") return forward(proxy.target, req, res);
    if (fault === "late") {
      proxy.onLate();
      return forward(proxy.target, req, res);
    }
    if (fault === "drop") return dropMidway(req);
    if (fault === "stall") return forwardStalled(proxy.target, req, res);
    req.resume();
    req.on("end", () => answer(res, fault));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** Reads part of the body, then cuts the connection without an answer. */
function dropMidway(req: IncomingMessage): void {
  let received = 0;
  req.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received >= 16 * 1024) req.socket.destroy();
  });
  req.on("end", () => req.socket.destroy());
}

function answer(res: ServerResponse, fault: "503" | "429" | "401" | "400"): void {
  const status = Number(fault);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (fault === "429") headers["retry-after"] = "1";
  const message = {
    503: "service unavailable",
    429: "too many requests",
    401: "token expired",
    400: "bad part",
  }[fault];
  res.writeHead(status, headers);
  res.end(
    JSON.stringify({
      success: false,
      errors: [{ code: 10000 + status, message }],
      messages: [],
      result: null,
    }),
  );
}

/** Forwards the headers and the first 16 KiB of the body; the rest is read from the client and dropped. */
function forwardStalled(target: string, req: IncomingMessage, res: ServerResponse): void {
  let answered = false;
  const upstream = request(
    new URL(req.url ?? "/", target),
    { method: req.method, headers: req.headers },
    (reply) => {
      answered = true;
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  upstream.on("error", () => {
    if (!answered) res.destroy();
  });
  let passed = 0;
  req.on("data", (chunk: Buffer) => {
    if (passed >= STALL_AFTER_BYTES) return;
    const part = chunk.subarray(0, STALL_AFTER_BYTES - passed);
    passed += part.length;
    upstream.write(part);
  });
}

const STALL_AFTER_BYTES = 16 * 1024;

function forward(target: string, req: IncomingMessage, res: ServerResponse): void {
  const upstream = request(
    new URL(req.url ?? "/", target),
    { method: req.method, headers: req.headers },
    (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    },
  );
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
}
