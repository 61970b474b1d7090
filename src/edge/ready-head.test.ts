import { createServer, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readyHead, writeReadyHead } from "./ready-head.js";

const FIELDS = {
  "x-content-type-options": "nosniff",
  "content-type": "text/html; charset=utf-8",
  etag: '"abc"',
  "content-length": 5,
};

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** The raw bytes of the head a listener answers a GET with, Date's value blanked. */
async function rawHead(answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => answer(res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const socket = connect(port, "127.0.0.1");
  socket.write("GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("latin1");
  return text.slice(0, text.indexOf("\r\n\r\n") + 4).replace(/^Date: .*$/m, "Date: -");
}

describe("ready heads", () => {
  it("writeReadyHead: the same bytes as writeHead with the fields, twice from one head", async () => {
    const plain = await rawHead((res) => res.writeHead(200, FIELDS).end("hello"));
    const head = readyHead(FIELDS);
    expect(await rawHead((res) => (writeReadyHead(res, 200, head), res.end("hello")))).toBe(plain);
    expect(await rawHead((res) => (writeReadyHead(res, 200, head), res.end("hello")))).toBe(plain);
    expect(plain).toContain('\r\netag: "abc"\r\ncontent-length: 5\r\n');
  });

  it("writeReadyHead: a field set on the response before stays, the head's fields after it", async () => {
    const head = readyHead(FIELDS);
    const text = await rawHead((res) => {
      res.setHeader("link", '<https://a.test/>; rel="canonical"');
      writeReadyHead(res, 404, head);
      res.end("hello");
    });
    expect(text).toMatch(
      /^HTTP\/1\.1 404 Not Found\r\nlink: <https:\/\/a\.test\/>; rel="canonical"\r\nx-content-type-options: nosniff\r\n/,
    );
    expect(text).toContain("\r\ncontent-length: 5\r\n");
  });

  it("readyHead: a field writeHead would refuse is refused when the head is made", () => {
    expect(() => readyHead({ "x-bad": "a\r\nb" })).toThrow();
    expect(() => readyHead({ "bad name": "a" })).toThrow();
  });

  it("writeReadyHead: a field named __proto__ is sent as any other", async () => {
    const fields = { ...FIELDS, ["__proto__"]: "x" };
    const plain = await rawHead((res) => res.writeHead(200, fields).end("hello"));
    const head = readyHead(fields);
    expect(plain).toContain("\r\n__proto__: x\r\n");
    expect(await rawHead((res) => (writeReadyHead(res, 200, head), res.end("hello")))).toBe(plain);
  });

  it("readyHead: a run of fields Node does not read is one stored field, the same bytes as writeHead", async () => {
    const fields = {
      "x-content-type-options": "nosniff",
      "content-type": "text/html; charset=utf-8",
      "set-cookie": ["a=1", "b=2"],
      "cache-control": "no-cache",
      vary: "Accept-Encoding",
      "content-length": 5,
      "x-after": "1",
    };
    const head = readyHead(fields);
    if (head.store === undefined) return; // this Node has no store to hand it: the plain call
    // Two runs, the list and Content-Length in their own places.
    expect(Object.keys(head.store)).toEqual([
      "x-content-type-options",
      "set-cookie",
      "cache-control",
      "content-length",
      "x-after",
    ]);
    const plain = await rawHead((res) => res.writeHead(200, fields).end("hello"));
    expect(plain).toContain("\r\nset-cookie: a=1\r\nset-cookie: b=2\r\ncache-control: no-cache\r\n");
    expect(await rawHead((res) => (writeReadyHead(res, 200, head), res.end("hello")))).toBe(plain);
  });

  it("writeReadyHead: the connection stays open for the next request, framed by Content-Length", async () => {
    const head = readyHead(FIELDS);
    const server = createServer((_req, res) => (writeReadyHead(res, 200, head), res.end("hello")));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, "127.0.0.1");
    const get = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
    socket.write(get + get + "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n");
    const chunks: Buffer[] = [];
    for await (const chunk of socket) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("latin1");
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(3);
    expect(text.match(/\r\n\r\nhello/g)).toHaveLength(3);
    expect(text).not.toContain("chunked");
  });

  it("readyHead: the head given to one response is not changed by it", async () => {
    const head = readyHead(FIELDS);
    await rawHead((res) => (writeReadyHead(res, 200, head), res.end("hello")));
    expect(head.fields).toEqual(FIELDS);
    if (head.store !== undefined) expect(Object.isFrozen(head.store)).toBe(true);
  });
});
