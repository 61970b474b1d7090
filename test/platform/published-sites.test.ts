import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { normalizeHost, PublishedSites } from "../../src/platform/local/published-sites.js";
import { DAY, SITES_DOMAIN, startTestEdge, type TestEdge } from "../support/edge-site.js";

describe("PublishedSites", () => {
  let edge: TestEdge;
  let lookup: PublishedSites;

  beforeEach(async () => {
    edge = await startTestEdge();
    lookup = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, now: () => edge.clock.now });
    await edge.addRevision({
      slug: "blue-fox-k3",
      revisionId: "aaaaaaaaa1",
      files: { "/index.html": "one" },
    });
    await edge.publish({
      slug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      files: { "/index.html": "two" },
      hostnames: ["blue-fox-k3.sites.test", "www.example.com"],
    });
  });
  afterEach(() => edge.close());

  it("normalizeHost: lowercases and strips a port and one trailing dot", () => {
    expect(normalizeHost("WWW.Example.COM")).toBe("www.example.com");
    expect(normalizeHost("a.test:8080")).toBe("a.test");
    expect(normalizeHost("a.test.")).toBe("a.test");
    expect(normalizeHost("a.test.:80")).toBe("a.test");
    expect(normalizeHost("a.test..")).toBe("a.test.");
    expect(normalizeHost("[::1]:8080")).toBe("[::1]");
  });

  it("resolve: a production hostname serves the published revision, not immutable", () => {
    const expected = {
      projectSlug: "blue-fox-k3",
      revisionId: "bbbbbbbbb2",
      immutable: false,
      publishedAt: edge.clock.now,
    };
    expect(lookup.resolve("blue-fox-k3.sites.test")).toEqual(expected);
    expect(lookup.resolve("WWW.EXAMPLE.COM.:443")).toEqual(expected);
  });

  it("resolve: a revision host serves that revision, even one not published, as immutable", () => {
    expect(lookup.resolve("aaaaaaaaa1--blue-fox-k3.sites.test")).toEqual({
      projectSlug: "blue-fox-k3",
      revisionId: "aaaaaaaaa1",
      immutable: true,
      publishedAt: edge.clock.now,
    });
  });

  it("resolve: a revision host of an unknown revision or project answers nothing", () => {
    expect(lookup.resolve("zzzzzzzzz9--blue-fox-k3.sites.test")).toBeUndefined();
    expect(lookup.resolve("aaaaaaaaa1--red-owl-x1.sites.test")).toBeUndefined();
    expect(lookup.resolve("aaaaaaaaa1--blue-fox-k3.other.test")).toBeUndefined();
    expect(lookup.resolve("aaaaaaaaa1--blue--fox.sites.test")).toBeUndefined();
  });

  it("resolve: unknown hosts and the sites domain itself answer nothing", () => {
    expect(lookup.resolve("nobody.sites.test")).toBeUndefined();
    expect(lookup.resolve(SITES_DOMAIN)).toBeUndefined();
    expect(lookup.resolve("")).toBeUndefined();
  });

  it("resolve: an expired site answers on no host, production or revision", () => {
    edge.clock.now += 31 * DAY;
    expect(lookup.resolve("blue-fox-k3.sites.test")).toBeUndefined();
    expect(lookup.resolve("aaaaaaaaa1--blue-fox-k3.sites.test")).toBeUndefined();
  });

  it("resolve: expiry is exclusive: a site expiring now is gone", () => {
    const { expires_at } = edge.db.prepare("SELECT expires_at FROM sites").get() as { expires_at: number };
    edge.clock.now = expires_at - 1;
    expect(lookup.resolve("blue-fox-k3.sites.test")).toBeDefined();
    edge.clock.now = expires_at;
    expect(lookup.resolve("blue-fox-k3.sites.test")).toBeUndefined();
  });

  it("resolve: a site with no published revision has no production host but keeps revision hosts", () => {
    edge.db.prepare("UPDATE sites SET revision_id = NULL").run();
    expect(lookup.resolve("blue-fox-k3.sites.test")).toBeUndefined();
    expect(lookup.resolve("aaaaaaaaa1--blue-fox-k3.sites.test")?.revisionId).toBe("aaaaaaaaa1");
  });

  it("resolve: a new publish shows on the next lookup", async () => {
    await edge.publish({ slug: "blue-fox-k3", revisionId: "ccccccccc3", files: { "/index.html": "three" } });
    expect(lookup.resolve("blue-fox-k3.sites.test")?.revisionId).toBe("ccccccccc3");
  });

  it("findFile: returns hash, size and stored content type of a revision's file", async () => {
    expect(lookup.findFile("blue-fox-k3", "bbbbbbbbb2", "/index.html")).toEqual({
      hash: await hashAsset(Buffer.from("two"), "/index.html"),
      size: 3,
      contentType: "text/html; charset=utf-8",
    });
    expect(lookup.findFile("blue-fox-k3", "aaaaaaaaa1", "/index.html")?.size).toBe(3);
  });

  it("findFile: answers nothing for a missing path, revision or project", () => {
    expect(lookup.findFile("blue-fox-k3", "bbbbbbbbb2", "/missing.html")).toBeUndefined();
    expect(lookup.findFile("blue-fox-k3", "zzzzzzzzz9", "/index.html")).toBeUndefined();
    expect(lookup.findFile("red-owl-x1", "bbbbbbbbb2", "/index.html")).toBeUndefined();
  });
});
