import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";
const REVISION_HOST = "bbbbbbbbb2--blue-fox-k3.sites.test";

describe("edge canonical URLs (Cloudflare Pages' auto-trailing-slash)", () => {
  let edge: TestEdge;
  const moved = async (path: string, host = HOST) => {
    const reply = await edge.get(host, path);
    return { status: reply.status, location: reply.headers.location };
  };
  const text = async (path: string) => {
    const reply = await edge.get(HOST, path);
    return { status: reply.status, text: reply.body.toString() };
  };

  beforeAll(async () => {
    edge = await startTestEdge();
    await edge.publish({
      slug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      files: {
        "/index.html": "home",
        "/about.html": "about",
        "/docs/index.html": "docs",
        "/docs/page.html": "page",
        "/both.html": "the file",
        "/both/index.html": "the folder",
        "/plain": "no extension",
        "/plain.html": "with extension",
        "/café/menu.html": "menu",
        "/dir with space/index.html": "spaced",
      },
    });
  });
  afterAll(() => edge.close());

  it("GET /name.html: 308 to /name, which serves it; the query is kept", async () => {
    expect(await moved("/about.html")).toEqual({ status: 308, location: "/about" });
    expect(await moved("/about.html?x=1&y=%20")).toEqual({ status: 308, location: "/about?x=1&y=%20" });
    expect(await text("/about")).toEqual({ status: 200, text: "about" });
  });

  it("GET /dir (a folder with an index): 308 to /dir/, which serves it; the query is kept", async () => {
    expect(await moved("/docs")).toEqual({ status: 308, location: "/docs/" });
    expect(await moved("/docs?tab=2")).toEqual({ status: 308, location: "/docs/?tab=2" });
    expect(await text("/docs/")).toEqual({ status: 200, text: "docs" });
  });

  it("GET /dir/index.html, /dir/index, /index.html and /index: 308 to /dir/ and /", async () => {
    expect(await moved("/docs/index.html")).toEqual({ status: 308, location: "/docs/" });
    expect(await moved("/docs/index")).toEqual({ status: 308, location: "/docs/" });
    expect(await moved("/index.html")).toEqual({ status: 308, location: "/" });
    expect(await moved("/index")).toEqual({ status: 308, location: "/" });
    expect(await moved("/index.html?q=1")).toEqual({ status: 308, location: "/?q=1" });
  });

  it("GET /name/ with only /name.html: 308 to /name", async () => {
    expect(await moved("/about/")).toEqual({ status: 308, location: "/about" });
    expect(await moved("/docs/page/")).toEqual({ status: 308, location: "/docs/page" });
  });

  it("GET a file and a folder of the same name: the file wins at /name, the folder's index at /name/", async () => {
    expect(await text("/both")).toEqual({ status: 200, text: "the file" });
    expect(await text("/both/")).toEqual({ status: 200, text: "the folder" });
    expect(await moved("/both.html")).toEqual({ status: 308, location: "/both" });
  });

  it("GET /name.html beside an extensionless /name: each served as it is, no redirect", async () => {
    expect(await text("/plain")).toEqual({ status: 200, text: "no extension" });
    expect(await text("/plain.html")).toEqual({ status: 200, text: "with extension" });
  });

  it("GET canonical redirect: Location percent-encoded, a short plain-text body, the pages' caching", async () => {
    const reply = await edge.get(HOST, "/caf%C3%A9/menu.html");
    expect(reply.status).toBe(308);
    expect(reply.headers.location).toBe("/caf%C3%A9/menu");
    expect(reply.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(reply.body.toString()).toBe("Permanent Redirect\n");
    expect(reply.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(await moved("/dir%20with%20space")).toEqual({ status: 308, location: "/dir%20with%20space/" });
  });

  it("GET canonical redirect on a revision host: kept as immutable, marked noindex", async () => {
    const reply = await edge.get(REVISION_HOST, "/about.html");
    expect([reply.status, reply.headers.location]).toEqual([308, "/about"]);
    expect(reply.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(reply.headers["x-robots-tag"]).toBe("noindex");
  });

  it("HEAD canonical redirect: the same status and Location, no body", async () => {
    const reply = await edge.get(HOST, "/docs", {}, "HEAD");
    expect([reply.status, reply.headers.location, reply.body.length]).toEqual([308, "/docs/", 0]);
  });
});
