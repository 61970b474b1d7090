import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError, NetworkError } from "../errors.js";
import { headerValue, sendRequest } from "./http.js";
import { rejectionOf } from "../test-rejection.js";

describe("http helpers", () => {
  it("headerValue: the header's value, the first when it came more than once, undefined when absent", () => {
    expect(headerValue("3")).toBe("3");
    expect(headerValue(["3", "7"])).toBe("3");
    expect(headerValue(undefined)).toBeUndefined();
  });
});

describe("sendRequest", () => {
  let server: Server;
  let url: string;
  let handler: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  const networkError = (promise: Promise<unknown>) => rejectionOf(promise, NetworkError);

  it("sendRequest: the status, headers and body text of the answer; a string body sent as it is", async () => {
    handler = (req, res) => {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString()));
      req.on("end", () => {
        res.writeHead(201, { "x-got": `${req.method} ${req.headers["x-test"]} ${body}` });
        res.end("ünïcode answer");
      });
    };
    const response = await sendRequest("say hello", {
      method: "POST",
      url: `${url}/hello`,
      headers: { "x-test": "yes" },
      body: "hello",
    });
    expect(response.status).toBe(201);
    expect(response.headers["x-got"]).toBe("POST yes hello");
    expect(response.text).toBe("ünïcode answer");
  });

  it("sendRequest: an answer over 4 MiB keeps only its first 4 MiB", async () => {
    handler = (_req, res) => {
      res.writeHead(200);
      res.write(Buffer.alloc(4 * 1024 * 1024, "a"));
      res.end("tail");
    };
    const response = await sendRequest("read", { method: "GET", url, headers: {} });
    expect(response.text.length).toBe(4 * 1024 * 1024);
    expect(response.text.endsWith("tail")).toBe(false);
  });

  it("sendRequest: a streamed body is sent whole; an answer before it is read wins over the broken stream", async () => {
    handler = (req, res) => {
      let size = 0;
      req.on("data", (chunk: Buffer) => (size += chunk.length));
      req.on("end", () => res.end(String(size)));
    };
    const body = async function* () {
      yield Buffer.alloc(1000);
      yield Buffer.alloc(24);
    };
    const whole = await sendRequest("send", { method: "POST", url, headers: {}, body });
    expect(whole.text).toBe("1024");

    handler = (_req, res) => {
      res.writeHead(401);
      res.end("expired");
    };
    const endless = async function* () {
      for (;;) {
        yield Buffer.alloc(64 * 1024);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const refused = await sendRequest("send", { method: "POST", url, headers: {}, body: endless });
    expect([refused.status, refused.text]).toEqual([401, "expired"]);
  });

  it("sendRequest: an error of the body's stream that is a CliError passes through as it is", async () => {
    handler = (req, res) => {
      req.resume();
      req.on("end", () => res.end());
    };
    const changed = new CliError("FILE_CHANGED", "a.txt changed while it was sent");
    const body = async function* () {
      yield Buffer.alloc(10);
      throw changed;
    };
    await expect(sendRequest("send", { method: "POST", url, headers: {}, body })).rejects.toBe(changed);
  });

  it("sendRequest: a refused connection is a NetworkError naming the step, the URL and what to check", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await networkError(
      sendRequest("read the project", {
        method: "GET",
        url: `http://127.0.0.1:${port}/state?x=1`,
        headers: {},
      }),
    );
    expect(error.causeCode).toBe("ECONNREFUSED");
    expect(error.message).toBe(
      `could not read the project: no answer from http://127.0.0.1:${port}/state (connection refused: is the server running?)`,
    );
    expect(error.hint).toBe(
      "Check --api-url (or DEPLOY_API_URL), and that the server is running (`npm start`).",
    );
  });

  it("sendRequest: a connection cut before the answer is a reset, worth checking the network", async () => {
    handler = (req) => req.socket.destroy();
    const error = await networkError(sendRequest("read", { method: "GET", url: `${url}/cut`, headers: {} }));
    expect(error.causeCode).toBe("ECONNRESET");
    expect(error.message).toBe(`could not read: no answer from ${url}/cut (connection reset)`);
    expect(error.hint).toBe("Check your network and run the command again.");
  });

  it("sendRequest: an answer cut midway is a reset too", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const error = await networkError(sendRequest("read", { method: "GET", url, headers: {} }));
    expect(error.message).toContain("(connection reset)");
  });
  it("sendRequest: an https URL goes through TLS: a refused one is a NetworkError too", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await networkError(
      sendRequest("read", { method: "GET", url: `https://127.0.0.1:${port}/`, headers: {} }),
    );
    expect(error.causeCode).toBe("ECONNREFUSED");
  });
});
