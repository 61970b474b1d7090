import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const HOST = "rule-site-a1.sites.test";
const BARE_HOST = "bare-site-b2.sites.test";

const REDIRECTS = `
/old     /about
/go/*    /to/:splat 302
/u/:id   /people/:id 301
`;

const HEADERS = `
/*
  X-Frame-Options: DENY
/people/:id
  X-Person: :id
/files/*
  X-Path: /files/:splat
  Link: </raw/:splat>; rel=alternate
`;

/**
 * Issue 34: `_headers` apply to every answer (redirects, plain 404s) as Cloudflare does and §7
 * says; placeholders in header values are filled; an odd path (an encoded slash, an empty segment)
 * is matched against `_redirects` before it is a 404.
 */
describe("edge: _headers on every answer, placeholders filled, odd paths redirected", () => {
  let edge: TestEdge;

  beforeAll(async () => {
    edge = await startTestEdge();
    await edge.publish({
      slug: "rule-site-a1",
      revisionId: "aaaaaaaaa1",
      files: {
        "/about.html": "about",
        "/people/ann.html": "ann",
        "/files/a/b.txt": "b",
        "/_redirects": REDIRECTS,
        "/_headers": HEADERS,
      },
    });
    await edge.publish({
      slug: "bare-site-b2",
      revisionId: "bbbbbbbbb2",
      files: { "/a.txt": "a", "/_headers": "/*\n  X-Frame-Options: DENY\n" },
    });
  });
  afterAll(() => edge.close());

  it("GET _redirects 3xx: the matching _headers rules apply to the redirect", async () => {
    const reply = await edge.get(HOST, "/old");
    expect([reply.status, reply.headers.location]).toEqual([301, "/about"]);
    expect(reply.headers["x-frame-options"]).toBe("DENY");
  });

  it("GET canonical redirect: the matching _headers rules apply to it", async () => {
    const reply = await edge.get(HOST, "/about.html");
    expect([reply.status >= 300 && reply.status < 400, reply.headers.location]).toEqual([true, "/about"]);
    expect(reply.headers["x-frame-options"]).toBe("DENY");
  });

  it("GET plain 404 (no 404.html, no index.html): the matching _headers rules apply to it", async () => {
    const reply = await edge.get(BARE_HOST, "/missing");
    expect(reply.status).toBe(404);
    expect(reply.headers["x-frame-options"]).toBe("DENY");
    expect(reply.headers["cache-control"]).toBe("no-store");
  });

  it("GET _headers value with :name and :splat: filled with what the pattern matched", async () => {
    const person = await edge.get(HOST, "/people/ann");
    expect([person.status, person.headers["x-person"]]).toEqual([200, "ann"]);
    const file = await edge.get(HOST, "/files/a/b.txt");
    expect([file.headers["x-path"], file.headers.link]).toEqual([
      "/files/a/b.txt",
      "</raw/a/b.txt>; rel=alternate",
    ]);
    // A redirect's headers are filled from the request's path too.
    const moved = await edge.get(HOST, "/u/bob");
    expect([moved.status, moved.headers.location]).toEqual([301, "/people/bob"]);
  });

  it("GET path with an encoded slash or an empty segment: _redirects is consulted before the 404", async () => {
    const encoded = await edge.get(HOST, "/go/a%2Fb");
    expect([encoded.status, encoded.headers.location]).toEqual([302, "/to/a%2Fb"]);
    const empty = await edge.get(HOST, "/go//x");
    expect([empty.status, empty.headers.location]).toEqual([302, "/to/x"]);
    expect((await edge.get(HOST, "/other//x")).status).toBe(404);
  });
});
