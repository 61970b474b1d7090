import { createServer, request, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseUnavailableError, ObjectStoreUnavailableError } from "../../src/core/errors.js";
import { sendPlain, sendServerError } from "../../src/edge/plain-response.js";

/** A listener that answers every request with what the test set: a real Node response to write to. */
let answer: (res: ServerResponse) => void = () => undefined;
let server: Server;
let port: number;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends one request; a connection cut before a complete answer resolves as "cut". */
function send(method = "GET"): Promise<Reply | "cut"> {
  return new Promise((resolve) => {
    const req = request({ port, host: "127.0.0.1", method, path: "/", agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
      res.on("error", () => resolve("cut"));
    });
    req.on("error", () => resolve("cut"));
    req.end();
  });
}

describe("edge plain responses", () => {
  beforeAll(async () => {
    server = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("sendPlain: the status, the message and a newline as text, nosniff, no-store, its length; extra fields win", async () => {
    answer = (res) => sendPlain(res, 404, "Not Found", { "cache-control": "max-age=1", allow: "GET" });
    const reply = await send();
    expect(reply).toMatchObject({
      status: 404,
      body: "Not Found\n",
      headers: {
        "content-type": "text/plain; charset=utf-8",
        "content-length": "10",
        "x-content-type-options": "nosniff",
        "cache-control": "max-age=1",
        allow: "GET",
      },
    });
    answer = (res) => sendPlain(res, 400, "Bad Request");
    expect((await send()) as Reply).toMatchObject({
      body: "Bad Request\n",
      headers: { "cache-control": "no-store" },
    });
  });

  it("sendPlain: HEAD gets the same head and no body", async () => {
    answer = (res) => sendPlain(res, 404, "Not Found");
    const reply = (await send("HEAD")) as Reply;
    expect(reply).toMatchObject({ status: 404, body: "", headers: { "content-length": "10" } });
  });

  it("sendServerError: 500 in plain text when no dependency is named", async () => {
    answer = (res) => sendServerError(res);
    const reply = (await send()) as Reply;
    expect(reply).toMatchObject({
      status: 500,
      body: "Internal Server Error\n",
      headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
    });
  });

  it("sendServerError: 503 JSON { error: { code, message } } with Retry-After for an unavailable dependency", async () => {
    for (const error of [new ObjectStoreUnavailableError(), new DatabaseUnavailableError()]) {
      answer = (res) => sendServerError(res, error);
      const reply = (await send()) as Reply;
      expect(reply.status, error.code).toBe(503);
      expect(JSON.parse(reply.body)).toEqual({ error: { code: error.code, message: error.message } });
      expect(reply.headers).toMatchObject({
        "content-type": "application/json; charset=utf-8",
        "content-length": String(Buffer.byteLength(reply.body)),
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
        "retry-after": "5",
      });
      answer = (res) => sendServerError(res, error);
      const head = (await send("HEAD")) as Reply;
      expect([head.status, head.body, head.headers["content-length"]]).toEqual([
        503,
        "",
        reply.headers["content-length"],
      ]);
    }
  });

  it("sendServerError: after the head went out, the connection is cut so the client sees a failure", async () => {
    for (const unavailable of [new ObjectStoreUnavailableError(), undefined]) {
      answer = (res) => {
        res.writeHead(200);
        res.write("partial");
        try {
          sendServerError(res, unavailable);
        } catch {
          // Writing a second head throws: end the chunked body, so the client would see an answer.
          res.end();
        }
      };
      expect(await send(), String(unavailable)).toBe("cut");
    }
  });
});
