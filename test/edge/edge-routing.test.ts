import { writeFileSync } from "node:fs";
import { sql } from "kysely";
import { basename, join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { DAY, startTestEdge, type TestEdge } from "../support/edge-site.js";

const SITE = "blue-fox-k3";
const HOST = `${SITE}.sites.test`;
const OLD_REVISION = "aaaaaaaaa1";
const REVISION = "bbbbbbbbb2";

describe("edge routing", () => {
  let edge: TestEdge;
  const body = async (host: string | undefined, path: string) => {
    const reply = await edge.get(host, path);
    return { status: reply.status, text: reply.body.toString(), type: reply.headers["content-type"] };
  };

  beforeAll(async () => {
    edge = await startTestEdge();
    await edge.publish({ slug: SITE, revisionId: OLD_REVISION, files: { "/index.html": "old home" } });
    await edge.publish({
      slug: SITE,
      revisionId: REVISION,
      hostnames: [HOST, "www.example.com"],
      files: {
        "/index.html": "home",
        "/about.html": "about",
        "/docs/index.html": "docs",
        "/exact": "exact, no extension",
        "/exact.html": "exact.html",
        "/404.html": "<h1>custom not found</h1>",
        "/café/menu.html": "menu",
        "/a b.txt": "spaced",
        "/%2e%2e/index.html": "literal percent name",
      },
    });
    await edge.publish({ slug: "bare-site-x1", revisionId: "ccccccccc3", files: { "/index.html": "bare" } });
  });
  afterAll(() => edge.close());
  beforeEach(() => {
    edge.clock.now = Date.now();
  });

  it("GET /: serves /index.html", async () => {
    expect(await body(HOST, "/")).toEqual({ status: 200, text: "home", type: "text/html; charset=utf-8" });
  });

  it("GET /name: serves /name.html; /name.html itself is a 308 to /name", async () => {
    expect((await body(HOST, "/about")).text).toBe("about");
    const moved = await edge.get(HOST, "/about.html");
    expect([moved.status, moved.headers.location]).toEqual([308, "/about"]);
  });

  it("GET /name: prefers the exact file to name.html", async () => {
    expect((await body(HOST, "/exact")).text).toBe("exact, no extension");
  });

  it("GET /dir/: serves /dir/index.html; /dir is a 308 to /dir/", async () => {
    expect((await body(HOST, "/docs/")).text).toBe("docs");
    const moved = await edge.get(HOST, "/docs");
    expect([moved.status, moved.headers.location]).toEqual([308, "/docs/"]);
  });

  it("GET /name/: serves only /name/index.html, else a 308 to /name when /name.html exists, else 404", async () => {
    const moved = await edge.get(HOST, "/about/");
    expect([moved.status, moved.headers.location]).toEqual([308, "/about"]);
    expect((await body(HOST, "/nothing/")).status).toBe(404);
  });

  it("GET: ignores the query string", async () => {
    expect((await body(HOST, "/about?utm=1&x=%zz")).text).toBe("about");
  });

  it("GET: decodes percent-encoded names", async () => {
    expect((await body(HOST, "/caf%C3%A9/menu")).text).toBe("menu");
    expect((await body(HOST, "/a%20b.txt")).text).toBe("spaced");
  });

  it("GET missing path: serves /404.html with status 404 when the site has one", async () => {
    const reply = await edge.get(HOST, "/nope");
    expect(reply.status).toBe(404);
    expect(reply.body.toString()).toBe("<h1>custom not found</h1>");
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(reply.headers["cache-control"]).toBe("no-store");
    expect(reply.headers.etag).toBeUndefined();
  });

  it("GET missing path: a plain 404 when the site has no /404.html", async () => {
    const reply = await edge.get("bare-site-x1.sites.test", "/nope");
    expect(reply.status).toBe(404);
    expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(reply.body.toString()).toBe("Not Found\n");
  });

  it("GET unknown host: plain 404", async () => {
    for (const host of ["nobody.sites.test", "sites.test", "example.org", "127.0.0.1", "[::1]:80", ""]) {
      const reply = await edge.get(host, "/");
      expect(reply.status, host).toBe(404);
      expect(reply.body.toString(), host).toBe("Not Found\n");
    }
  });

  it("GET: an HTTP/1.0 request without Host reaches no site (404); HTTP/1.1 without Host is a 400", async () => {
    expect(await edge.raw("GET / HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.1 404 /);
    const reply = await edge.get(undefined, "/");
    expect([reply.status, reply.body.toString()]).toEqual([400, "Bad Request\n"]);
  });

  it("GET: Host is matched case-insensitively, with a port or one trailing dot", async () => {
    for (const host of [
      "BLUE-FOX-K3.Sites.Test",
      `${HOST}:8080`,
      `${HOST}.`,
      `${HOST}.:443`,
      "WWW.EXAMPLE.COM.",
    ]) {
      expect((await body(host, "/")).text, host).toBe("home");
    }
    expect((await body(`${HOST}..`, "/")).status).toBe(404);
  });

  it("GET absolute-form target: the target's host wins over the Host header", async () => {
    const response = await edge.raw(
      `GET http://${HOST}/about HTTP/1.1\r\nHost: nobody.sites.test\r\nConnection: close\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response.endsWith("about")).toBe(true);
  });

  it("GET revision host: serves that revision, old or current", async () => {
    expect((await body(`${OLD_REVISION}--${SITE}.sites.test`, "/")).text).toBe("old home");
    expect((await body(`${REVISION}--${SITE}.sites.test`, "/about")).text).toBe("about");
    expect((await body(`zzzzzzzzz9--${SITE}.sites.test`, "/")).status).toBe(404);
  });

  it("GET expired site: neither production nor revision hosts are served", async () => {
    edge.clock.now = Date.now() + 31 * DAY;
    expect((await body(HOST, "/")).status).toBe(404);
    expect((await body("www.example.com", "/")).status).toBe(404);
    expect((await body(`${OLD_REVISION}--${SITE}.sites.test`, "/")).status).toBe(404);
  });

  it("GET after publish or removal: the change shows on the very next request", async () => {
    await edge.publish({ slug: "next-site-q7", revisionId: "ddddddddd4", files: { "/index.html": "v1" } });
    expect((await body("next-site-q7.sites.test", "/")).text).toBe("v1");
    await edge.publish({ slug: "next-site-q7", revisionId: "eeeeeeeee5", files: { "/index.html": "v2" } });
    expect((await body("next-site-q7.sites.test", "/")).text).toBe("v2");
    await sql`DELETE FROM sites WHERE project_slug = ${"next-site-q7"}`.execute(edge.db.db);
    expect((await body("next-site-q7.sites.test", "/")).status).toBe(404);
  });

  it("non-GET methods: 405 with Allow: GET, HEAD", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const reply = await edge.get(HOST, "/", {}, method);
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow).toBe("GET, HEAD");
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("GET malformed percent-encoding: 400", async () => {
    for (const path of ["/%zz", "/a%", "/%C3", "/docs/%E0%A4%A"]) {
      const reply = await edge.get(HOST, path);
      expect(reply.status, path).toBe(400);
      expect(reply.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("GET traversal attempts: never leave the manifest, answered as the site's 404", async () => {
    // Something worth stealing next to the packs, and a blob's own pack and (old layout) file path.
    writeFileSync(join(edge.packs.dir, "secret.txt"), "secret");
    const hash = await hashAsset(Buffer.from("home"), "/index.html");
    const pack = basename((await edge.blobFile(hash)).path);
    for (const path of [
      "/../index.html",
      "/docs/../index.html",
      "/../../secret.txt",
      "/%2e%2e/%2e%2e/secret.txt",
      "/%2E%2E%2F%2E%2E%2Fsecret.txt",
      "/docs/..%2findex.html",
      "/..%5c..%5csecret.txt",
      "/..\\..\\secret.txt",
      "/docs\\index.html",
      "/./index.html",
      "//index.html",
      "/index.html%00.txt",
      "/platform.sqlite",
      `/blobs/${hash.slice(0, 2)}/${hash}`,
      `/packs/${pack}`,
      `/../packs/${pack}`,
    ]) {
      const reply = await edge.get(HOST, path);
      expect(reply.status, path).toBe(404);
      expect(reply.body.toString(), path).toBe("<h1>custom not found</h1>");
    }
  });

  it("GET double-encoded dots: decoded once, naming only a literal manifest entry", async () => {
    const moved = await edge.get(HOST, "/%252e%252e/index.html");
    expect([moved.status, moved.headers.location]).toEqual([308, "/%252e%252e/"]);
    expect((await body(HOST, "/%252e%252e/")).text).toBe("literal percent name");
    expect((await body(HOST, "/%252e%252e/secret.txt")).status).toBe(404);
  });
});
