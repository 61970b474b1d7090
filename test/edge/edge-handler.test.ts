import { rmSync } from "node:fs";
import { sql } from "kysely";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { EdgeOptions } from "../../src/edge/edge-handler.js";
import { manifestWritten } from "../../src/platform/selfhost/sites/manifest-generation.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

// Each test starts its own edge: what createEdgeHandler sets up must run while the test does.
const HOST = "blue-fox-k3.sites.test";
const FILES = {
  "/index.html": "home",
  "/about.html": "about",
  "/target/index.html": "the target",
  "/_redirects": "/old /target 200\n",
};
let edge: TestEdge | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await edge?.close();
  edge = undefined;
});

async function siteEdge(options: Partial<EdgeOptions> = {}, files: Record<string, string> = FILES) {
  edge = await startTestEdge(options);
  await edge.publish({ slug: "blue-fox-k3", revisionId: "bbbbbbbbb2", files });
  return edge;
}

/** The status line, the header lines (lower-cased names) and the body of a raw response. */
function parts(raw: string) {
  const [head = "", body = ""] = raw.split("\r\n\r\n");
  const [statusLine, ...lines] = head.split("\r\n");
  return { statusLine, lines: lines.map((line) => line.toLowerCase()), body };
}

describe("edge handler", () => {
  it("edge: a request the HTTP rules refuse (two Host fields) is 400 Bad Request and its connection closed", async () => {
    const e = await siteEdge();
    // No `Connection: close` from the client: the edge closes it itself, and says so.
    const reply = parts(await e.raw(`GET / HTTP/1.1\r\nHost: ${HOST}\r\nHost: other.test\r\n\r\n`));
    expect(reply.statusLine).toBe("HTTP/1.1 400 Bad Request");
    expect(reply.lines).toContain("connection: close");
    expect(reply.body).toBe("Bad Request\n");
  });

  it("edge: POST is 405 Method Not Allowed, Allow: GET, HEAD", async () => {
    const e = await siteEdge();
    const reply = await e.get(HOST, "/", {}, "POST");
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe("GET, HEAD");
    expect(reply.body.toString()).toBe("Method Not Allowed\n");
  });

  it("edge: an absolute-form target is served by its own host; one that is not a URL is 400 Bad Request", async () => {
    const e = await siteEdge();
    const served = parts(
      await e.raw(`GET http://${HOST}/about HTTP/1.1\r\nHost: other.test\r\nConnection: close\r\n\r\n`),
    );
    expect([served.statusLine, served.body]).toEqual(["HTTP/1.1 200 OK", "about"]);
    const bad = parts(
      await e.raw(`GET http://[nope/ HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`),
    );
    expect([bad.statusLine, bad.body]).toEqual(["HTTP/1.1 400 Bad Request", "Bad Request\n"]);
  });

  it("edge: a host that serves nothing is 404 Not Found, or 400 Bad Request for a malformed path", async () => {
    const e = await siteEdge();
    const missing = await e.get("nobody.sites.test", "/a");
    expect([missing.status, missing.body.toString()]).toEqual([404, "Not Found\n"]);
    const malformed = await e.get("nobody.sites.test", "/%zz");
    expect([malformed.status, malformed.body.toString()]).toEqual([400, "Bad Request\n"]);
  });

  it("edge: a path a site without 404.html or index.html does not hold is a plain 404 Not Found", async () => {
    const e = await siteEdge({}, { "/a.txt": "a" });
    const reply = await e.get(HOST, "/b.txt");
    expect([reply.status, reply.body.toString()]).toEqual([404, "Not Found\n"]);
  });

  it("edge: a site with a custom domain names it in Link rel=canonical on its generated host, and only there", async () => {
    const e = await siteEdge({}, { ...FILES, "/docs/page.txt": "page" });
    await sql`UPDATE site_hosts SET canonical_url = 'https://www.example.com/' WHERE hostname = ${HOST}`.execute(
      e.db.db,
    );
    await sql`INSERT INTO site_hosts (hostname, project_slug) VALUES ('www.example.com', 'blue-fox-k3')`.execute(
      e.db.db,
    );
    manifestWritten(e.db);
    const generated = await e.get(HOST, "/docs/page.txt?x=1");
    expect(generated.status).toBe(200);
    expect(generated.headers.link).toBe('<https://www.example.com/docs/page.txt>; rel="canonical"');
    const custom = await e.get("www.example.com", "/docs/page.txt");
    expect(custom.status).toBe(200);
    expect(custom.headers.link).toBeUndefined();
  });

  it("edge: the canonical Link carries the request path percent-encoded, so no path can add a link of its own", async () => {
    const e = await siteEdge({}, { ...FILES, "/404.html": "lost", "/a b.txt": "spaced" });
    await sql`UPDATE site_hosts SET canonical_url = 'https://www.example.com/' WHERE hostname = ${HOST}`.execute(
      e.db.db,
    );
    manifestWritten(e.db);
    const link = async (target: string) => {
      const reply = parts(
        await e.raw(`GET ${target} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`),
      );
      return reply.lines.filter((line) => line.startsWith("link:"));
    };
    // Node refuses a raw space in the request line; `>`, `"` and `<` it lets through as sent.
    expect(await link('/x>;rel="preload",<https://evil.test/>;rel="canonical"?q=1')).toEqual([
      'link: <https://www.example.com/x%3e;rel=%22preload%22,%3chttps://evil.test/%3e;rel=%22canonical%22>; rel="canonical"',
    ]);
    expect(await link("/a%20b.txt")).toEqual(['link: <https://www.example.com/a%20b.txt>; rel="canonical"']);
    expect(await link("/{x}|^`\\")).toEqual([
      'link: <https://www.example.com/%7bx%7d%7c%5e%60%5c>; rel="canonical"',
    ]);
  });

  it("edge: a production redirect carries no X-Robots-Tag", async () => {
    const e = await siteEdge();
    const reply = await e.get(HOST, "/about.html");
    expect([reply.status, reply.headers.location]).toEqual([308, "/about"]);
    expect(reply.headers["x-robots-tag"]).toBeUndefined();
  });

  it("edge: a canonical redirect keeps the query, never a bare ? or a fragment", async () => {
    const e = await siteEdge();
    const raw = async (target: string) =>
      parts(await e.raw(`GET ${target} HTTP/1.1\r\nHost: ${HOST}\r\nConnection: close\r\n\r\n`));
    expect((await raw("/about.html?")).lines).toContain("location: /about");
    expect((await raw("/about.html?x=1#part")).lines).toContain("location: /about?x=1");
    expect((await raw("/about.html#part")).lines).toContain("location: /about");
  });

  it("edge: a 200 rewrite serves the first of its target's forms that exists", async () => {
    const e = await siteEdge();
    const reply = await e.get(HOST, "/old");
    expect([reply.status, reply.body.toString()]).toEqual([200, "the target"]);
  });

  it("edge: a path no file can have (an encoded slash) gets the site's 404 page, _headers rules or not", async () => {
    const e = await siteEdge({}, { "/404.html": "lost", "/_headers": "/about\n  X-Test: yes\n" });
    const reply = await e.get(HOST, "/a/%2F/b");
    expect([reply.status, reply.body.toString()]).toEqual([404, "lost"]);
    expect(reply.headers["x-test"]).toBeUndefined();
  });

  it("edge: with cacheBytes 0, nothing is kept in memory", async () => {
    const e = await siteEdge({ cacheBytes: 0 });
    expect((await e.get(HOST, "/about")).status).toBe(200);
    expect((await e.get(HOST, "/about")).status).toBe(200);
    expect(e.cacheStats()).toMatchObject({ hits: 0, bytes: 0 });
  });

  it("edge: a failure is a plain 500, told to the console without onError, and a reporter that throws changes nothing", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const e = await siteEdge({ onError: undefined });
    const hash = await e.addBlob("gone", "/gone.txt");
    await e.publish({ slug: "blue-fox-k3", revisionId: "ccccccccc3", files: { "/gone.txt": "gone" } });
    rmSync((await e.blobFile(hash)).path);
    const reply = await e.get(HOST, "/gone.txt");
    expect([reply.status, reply.body.toString()]).toEqual([500, "Internal Server Error\n"]);
    expect(errors).toHaveBeenCalledWith("edge: request failed:", expect.any(Error));
    await e.close();

    const throwing = await siteEdge({
      onError: () => {
        throw new Error("the reporter fails");
      },
    });
    const again = await throwing.addBlob("gone", "/gone.txt");
    await throwing.publish({ slug: "blue-fox-k3", revisionId: "ccccccccc3", files: { "/gone.txt": "gone" } });
    rmSync((await throwing.blobFile(again)).path);
    expect((await throwing.get(HOST, "/gone.txt")).status).toBe(500);
  });
});
