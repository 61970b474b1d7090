import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";

const NESTED = "nested-404-n1.sites.test";
const APP = "app-headers-a2.sites.test";
const HTML = { accept: "text/html" };

/** Issue 34: behaviours the built-in edge took from Cloudflare's asset server, so a site answers alike. */
describe("edge: as Cloudflare answers", () => {
  let edge: TestEdge;

  beforeAll(async () => {
    edge = await startTestEdge();
    await edge.publish({
      slug: "nested-404-n1",
      revisionId: "aaaaaaaaa1",
      files: {
        "/index.html": "home",
        "/guide/index.html": "guide",
        "/guide/404.html": "guide lost",
        "/404.html": "root lost",
      },
    });
    await edge.publish({
      slug: "app-headers-a2",
      revisionId: "bbbbbbbbb2",
      files: {
        "/index.html": "shell",
        "/_headers": "/\n  X-Home: yes\n/deep/*\n  X-Deep: :splat\n",
      },
    });
  });
  afterAll(() => edge.close());

  it("GET missing path: the nearest 404.html up the tree answers, with 404", async () => {
    const answers = [];
    for (const path of ["/guide/nope", "/guide/a/b/nope", "/nope", "/other/nope"]) {
      const reply = await edge.get(NESTED, path);
      answers.push([path, reply.status, reply.body.toString()]);
    }
    expect(answers).toEqual([
      ["/guide/nope", 404, "guide lost"],
      ["/guide/a/b/nope", 404, "guide lost"],
      ["/nope", 404, "root lost"],
      ["/other/nope", 404, "root lost"],
    ]);
  });

  it("GET single-page app fallback: `/` answering at another URL carries `/`'s _headers, not the URL's", async () => {
    const reply = await edge.get(APP, "/deep/route", HTML);
    expect([reply.status, reply.body.toString()]).toEqual([200, "shell"]);
    expect([reply.headers["x-home"], reply.headers["x-deep"]]).toEqual(["yes", undefined]);
    // The plain 404 a non-navigation gets is the URL's own answer: its rules apply.
    const miss = await edge.get(APP, "/deep/route.js");
    expect([miss.status, miss.headers["x-deep"]]).toEqual([404, "route.js"]);
  });
});
