import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "blue-fox-k3.sites.test";
const REVISION_HOST = "bbbbbbbbb2--blue-fox-k3.sites.test";
const APP_HOST = "app-site-x1.sites.test";
const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

const REDIRECTS = `
# moved for good, and for now
/old-page      /about
/moved-302     /about 302
/see-other     /about 303
/temporary     /about 307
/permanent     /about 308
/about         /elsewhere 302
/blog/*        /news/:splat
/users/:id/:tab  /people/:tab/:id 302
/docs/*        https://docs.example.com/:splat 308
/shop/*        /shop/index.html 200
/style.css     /nope.css 200
/menu          /carte/café€ 302
`;

const HEADERS = `
/*
  X-Frame-Options: DENY
  Link: </style.css>; rel=preload
/assets/*
  Cache-Control: public, max-age=31536000, immutable
  Access-Control-Allow-Origin: https://app.example.com
  Link: </font.woff2>; rel=preload
/assets/raw/:name
  ! X-Frame-Options
  ! Referrer-Policy
/sniff/*
  ! X-Content-Type-Options
/sniff/set.txt
  X-Content-Type-Options: none
`;

describe("edge with _redirects and _headers", () => {
  let edge: TestEdge;

  beforeAll(async () => {
    edge = await startTestEdge();
    await edge.publish({
      slug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      files: {
        "/index.html": "home",
        "/about.html": "about",
        "/style.css": "body {}",
        "/shop/index.html": "shop app",
        "/shop/cart.js": "cart()",
        "/assets/app.js": "app()",
        "/assets/raw/data.json": "{}",
        "/sniff/page.txt": "<script>alert(1)</script>",
        "/sniff/set.txt": "<script>alert(1)</script>",
        "/404.html": "custom 404",
        "/_redirects": REDIRECTS,
        "/_headers": HEADERS,
      },
    });
    await edge.publish({
      slug: "app-site-x1",
      revisionId: "ccccccccc3",
      files: { "/index.html": "<div id=app>" },
    });
  });
  afterAll(() => edge.close());
  const moved = async (path: string) => {
    const reply = await edge.get(HOST, path);
    return { status: reply.status, location: reply.headers.location };
  };

  it("GET _redirects rule: 301 by default, and each status it names, with a short plain-text body", async () => {
    expect(await moved("/old-page")).toEqual({ status: 301, location: "/about" });
    expect(await moved("/moved-302")).toEqual({ status: 302, location: "/about" });
    expect(await moved("/see-other")).toEqual({ status: 303, location: "/about" });
    expect(await moved("/temporary")).toEqual({ status: 307, location: "/about" });
    expect(await moved("/permanent")).toEqual({ status: 308, location: "/about" });
    const reply = await edge.get(HOST, "/old-page/");
    expect([reply.status, reply.body.toString()]).toEqual([301, "Moved Permanently\n"]);
  });

  it("GET _redirects rule: followed even where a file exists (Cloudflare Pages' order)", async () => {
    expect(await moved("/about")).toEqual({ status: 302, location: "/elsewhere" });
  });

  it("GET _redirects rule: splats and placeholders carried into the target, the query kept", async () => {
    expect(await moved("/blog/2024/hello%20world?ref=x")).toEqual({
      status: 301,
      location: "/news/2024/hello%20world?ref=x",
    });
    expect(await moved("/users/42/posts")).toEqual({ status: 302, location: "/people/posts/42" });
    // A target no header could carry as written is sent percent-encoded, never a failure.
    expect(await moved("/menu")).toEqual({ status: 302, location: "/carte/caf%C3%A9%E2%82%AC" });
    expect(await moved("/docs/guide/intro")).toEqual({
      status: 308,
      location: "https://docs.example.com/guide/intro",
    });
  });

  it("GET _redirects 200 rewrite: the target's content at the requested URL, only where no file answers", async () => {
    const reply = await edge.get(HOST, "/shop/product/12");
    expect([reply.status, reply.body.toString(), reply.headers.location]).toEqual([
      200,
      "shop app",
      undefined,
    ]);
    expect((await edge.get(HOST, "/shop/cart.js")).body.toString()).toBe("cart()");
    expect((await edge.get(HOST, "/style.css")).body.toString()).toBe("body {}");
  });

  it("GET _redirects and _headers themselves: never served, the site's 404", async () => {
    for (const path of ["/_redirects", "/_headers", "/_redirects/", "/_headers.html"]) {
      const reply = await edge.get(HOST, path);
      expect([reply.status, reply.body.toString()], path).toEqual([404, "custom 404"]);
    }
  });

  it("GET _headers: every matching rule's headers, joined by name, replacing the edge's defaults", async () => {
    const page = await edge.get(HOST, "/");
    expect(page.headers["x-frame-options"]).toBe("DENY");
    expect(page.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(page.headers["access-control-allow-origin"]).toBe("*");
    const asset = await edge.get(HOST, "/assets/app.js");
    expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(asset.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    expect(asset.headers.link).toBe("</style.css>; rel=preload, </font.woff2>; rel=preload");
    expect(asset.headers["x-frame-options"]).toBe("DENY");
  });

  it("GET _headers ! Name: removes a header another rule set, and an edge default", async () => {
    const raw = await edge.get(HOST, "/assets/raw/data.json");
    expect(raw.status).toBe(200);
    expect(raw.headers["x-frame-options"]).toBeUndefined();
    expect(raw.headers["referrer-policy"]).toBeUndefined();
    expect(raw.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("GET _headers ! X-Content-Type-Options: nosniff stays, on files, on the 404 page and when set to another value", async () => {
    for (const path of ["/sniff/page.txt", "/sniff/set.txt", "/sniff/missing.txt"]) {
      const reply = await edge.get(HOST, path);
      expect(reply.headers["x-content-type-options"], path).toBe("nosniff");
    }
    expect((await edge.get(HOST, "/sniff/missing.txt")).status).toBe(404);
  });

  it("GET _headers on the 404 page and a revision host: no-store and noindex whatever _headers says", async () => {
    const missing = await edge.get(HOST, "/assets/missing.js");
    expect([missing.status, missing.headers["cache-control"]]).toEqual([404, "no-store"]);
    expect(missing.headers["x-frame-options"]).toBe("DENY");
    const pinned = await edge.get(REVISION_HOST, "/assets/app.js");
    expect(pinned.headers["x-robots-tag"]).toBe("noindex");
    expect(pinned.headers["x-frame-options"]).toBe("DENY");
  });

  it("GET 304 under _headers: keeps the rules' caching fields", async () => {
    const first = await edge.get(HOST, "/assets/app.js");
    const again = await edge.get(HOST, "/assets/app.js", { "if-none-match": String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("GET single-page app (index.html, no 404.html): a navigation to a missing path gets /index.html with 200", async () => {
    const reply = await edge.get(APP_HOST, "/settings/profile", HTML);
    expect([reply.status, reply.body.toString()]).toEqual([200, "<div id=app>"]);
    expect(reply.headers["content-type"]).toBe("text/html; charset=utf-8");
  });

  it("GET single-page app: a request that does not ask for HTML gets a plain 404", async () => {
    const cases: Record<string, string>[] = [
      {},
      { accept: "image/avif,image/webp,*/*" },
      { accept: "application/json" },
    ];
    for (const headers of cases) {
      const reply = await edge.get(APP_HOST, "/missing.png", headers);
      expect([reply.status, reply.body.toString()], JSON.stringify(headers)).toEqual([404, "Not Found\n"]);
    }
  });

  it("GET a site with a 404.html: a navigation to a missing path gets the 404 page, not the app", async () => {
    const reply = await edge.get(HOST, "/nothing/here", HTML);
    expect([reply.status, reply.body.toString()]).toEqual([404, "custom 404"]);
  });

  it("GET after a publish without the rules files: the old rules no longer apply", async () => {
    await edge.publish({
      slug: "rules-gone-x2",
      revisionId: "ddddddddd4",
      files: { "/index.html": "v1", "/_redirects": "/go /index.html 302" },
    });
    const host = "rules-gone-x2.sites.test";
    expect((await edge.get(host, "/go")).status).toBe(302);
    await edge.publish({ slug: "rules-gone-x2", revisionId: "eeeeeeeee5", files: { "/index.html": "v2" } });
    expect((await edge.get(host, "/go", HTML)).body.toString()).toBe("v2");
  });
});
