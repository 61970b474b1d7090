import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";

/** The status line and the body of a raw response. */
function parts(raw: string): { statusLine: string; headers: string; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, end);
  return { statusLine: head.split("\r\n")[0]!, headers: head.toLowerCase(), body: raw.slice(end + 4) };
}

describe("edge HTTP exactness (RFC 9112)", () => {
  let edge: TestEdge;

  beforeAll(async () => {
    edge = await startTestEdge();
    await edge.publish({ slug: "blue-fox-k3", revisionId: "bbbbbbbbb2", files: { "/index.html": "home" } });
  });
  afterAll(() => edge.close());

  it("GET with two Host headers: 400 with a plain-text body, even when both name the site", async () => {
    for (const second of [HOST, "other.test"]) {
      const raw = await edge.raw(
        `GET / HTTP/1.1\r\nHost: ${HOST}\r\nHost: ${second}\r\nConnection: close\r\n\r\n`,
      );
      const reply = parts(raw);
      expect(reply.statusLine, second).toBe("HTTP/1.1 400 Bad Request");
      expect(reply.headers).toContain("content-type: text/plain; charset=utf-8");
      expect(reply.body).toBe("Bad Request\n");
    }
  });

  it("GET HTTP/1.1 without Host: 400, also with an absolute-form target", async () => {
    for (const target of ["/", `http://${HOST}/`]) {
      const reply = parts(await edge.raw(`GET ${target} HTTP/1.1\r\nConnection: close\r\n\r\n`));
      expect([reply.statusLine, reply.body], target).toEqual(["HTTP/1.1 400 Bad Request", "Bad Request\n"]);
    }
  });

  it("GET a too-long request target: 414 with a plain-text body, whether the edge or the parser sees it", async () => {
    for (const length of [10_000, 20_000]) {
      const raw = await edge.raw(
        `GET /${"a".repeat(length)} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`,
      );
      const reply = parts(raw);
      expect(reply.statusLine, String(length)).toBe("HTTP/1.1 414 URI Too Long");
      expect(reply.headers).toContain("content-type: text/plain; charset=utf-8");
      expect(reply.body).toBe("URI Too Long\n");
    }
  });

  it("GET headers over the parser's limit with a short target: 431 with a plain-text body", async () => {
    const raw = await edge.raw(`GET / HTTP/1.1\r\nHost: ${HOST}\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`);
    const reply = parts(raw);
    expect(reply.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(reply.body).toBe("Request Header Fields Too Large\n");
  });

  it("a malformed request line: 400 with a plain-text body", async () => {
    const reply = parts(await edge.raw("GET / HTTP/9\r\nHost: x\r\n\r\n"));
    expect([reply.statusLine, reply.body]).toEqual(["HTTP/1.1 400 Bad Request", "Bad Request\n"]);
  });

  it("GET a target just under the limit: routed as usual (the site's plain 404)", async () => {
    const reply = await edge.get(HOST, `/${"a".repeat(8_000)}`);
    expect([reply.status, reply.body.toString()]).toEqual([404, "Not Found\n"]);
  });
});
