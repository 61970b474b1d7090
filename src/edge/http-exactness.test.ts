import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { answerClientError, MAX_TARGET_LENGTH, refusalOf } from "./http-exactness.js";

/** A parsed request as Node's parser gives it: the fields `refusalOf` reads. */
function request(rawHeaders: string[], url = "/", version = "1.1"): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    headers[name] ??= rawHeaders[i + 1]!;
  }
  const [major, minor] = version.split(".").map(Number);
  return { url, headers, rawHeaders, httpVersionMajor: major, httpVersionMinor: minor } as IncomingMessage;
}

/** What `answerClientError` wrote to a socket, and whether it ended or destroyed it. */
async function answered(error: Error & { code?: string; rawPacket?: Buffer }, writable = true) {
  const socket = new PassThrough();
  if (!writable) socket.end();
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  answerClientError(error, socket);
  await new Promise((resolve) => setImmediate(resolve));
  return { text: Buffer.concat(chunks).toString(), destroyed: socket.destroyed, ended: socket.writableEnded };
}

function parserError(
  code: string | undefined,
  rawPacket?: Buffer,
): Error & { code?: string; rawPacket?: Buffer } {
  return Object.assign(new Error("parse"), { code, rawPacket });
}

describe("refusalOf", () => {
  it("refusalOf: a request with one Host and a target up to the limit goes on", () => {
    expect(refusalOf(request(["Host", "a.test"], `/${"a".repeat(MAX_TARGET_LENGTH - 1)}`))).toBeUndefined();
    expect(refusalOf(request(["host", "a.test", "X-Host", "b", "Hosts", "c"]))).toBeUndefined();
  });

  it("refusalOf: 414 URI Too Long for a target one byte over the limit", () => {
    const long = request(["Host", "a.test"], `/${"a".repeat(MAX_TARGET_LENGTH)}`);
    expect(refusalOf(long)).toEqual({ status: 414, message: "URI Too Long" });
  });

  it("refusalOf: 400 Bad Request for two Host headers, in any case", () => {
    // Another four-letter field is not a second Host.
    expect(refusalOf(request(["Date", "today", "Host", "a.test", "Vary", "x"]))).toBeUndefined();
    expect(refusalOf(request(["Host", "a.test", "HOST", "a.test"]))).toEqual({
      status: 400,
      message: "Bad Request",
    });
  });

  it("refusalOf: 400 Bad Request for HTTP/1.1 without Host; HTTP/1.0 may omit it", () => {
    expect(refusalOf(request([], "/", "1.1"))).toEqual({ status: 400, message: "Bad Request" });
    expect(refusalOf(request([], "/", "2.0"))).toEqual({ status: 400, message: "Bad Request" });
    expect(refusalOf(request([], "/", "1.0"))).toBeUndefined();
  });
});

describe("answerClientError", () => {
  const reply = (status: string, message: string) =>
    `HTTP/1.1 ${status} ${message}\r\n` +
    "Content-Type: text/plain; charset=utf-8\r\n" +
    `Content-Length: ${message.length + 1}\r\n` +
    "X-Content-Type-Options: nosniff\r\n" +
    "Cache-Control: no-store\r\n" +
    "Connection: close\r\n\r\n" +
    `${message}\n`;

  it("answerClientError: a malformed request is answered 400 in full, then the socket ends", async () => {
    const result = await answered(parserError("HPE_INVALID_METHOD"));
    expect(result.text).toBe(reply("400", "Bad Request"));
    expect(result.ended).toBe(true);
  });

  it("answerClientError: a request timeout is 408", async () => {
    expect((await answered(parserError("ERR_HTTP_REQUEST_TIMEOUT"))).text).toBe(
      reply("408", "Request Timeout"),
    );
  });

  it("answerClientError: over the header limit, 431 when the request line ends within the target limit, else 414", async () => {
    const line = (length: number) => Buffer.from(`GET /${"a".repeat(length)} HTTP/1.1\r\nX: y`);
    const short = await answered(parserError("HPE_HEADER_OVERFLOW", line(10)));
    expect(short.text).toBe(reply("431", "Request Header Fields Too Large"));
    // The newline at index MAX_TARGET_LENGTH exactly still counts as within it.
    const atLimit = Buffer.concat([Buffer.alloc(MAX_TARGET_LENGTH, 0x61), Buffer.from("\nX: y")]);
    expect((await answered(parserError("HPE_HEADER_OVERFLOW", atLimit))).text).toBe(
      reply("431", "Request Header Fields Too Large"),
    );
    const over = Buffer.concat([Buffer.alloc(MAX_TARGET_LENGTH + 1, 0x61), Buffer.from("\nX: y")]);
    expect((await answered(parserError("HPE_HEADER_OVERFLOW", over))).text).toBe(
      reply("414", "URI Too Long"),
    );
    expect((await answered(parserError("HPE_HEADER_OVERFLOW", line(20_000)))).text).toBe(
      reply("414", "URI Too Long"),
    );
    // No newline seen at all, or no packet: the request line alone was too long.
    expect((await answered(parserError("HPE_HEADER_OVERFLOW", Buffer.from("GET /aaaa")))).text).toBe(
      reply("414", "URI Too Long"),
    );
    expect((await answered(parserError("HPE_HEADER_OVERFLOW"))).text).toBe(reply("414", "URI Too Long"));
  });

  it("answerClientError: a reset connection or a socket that cannot be written is destroyed, nothing written", async () => {
    const reset = await answered(parserError("ECONNRESET"));
    expect(reset).toMatchObject({ text: "", destroyed: true });
    const closed = await answered(parserError("HPE_INVALID_METHOD"), false);
    expect(closed).toMatchObject({ text: "", destroyed: true });
  });
});
