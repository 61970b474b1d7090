import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PublishedSites } from "../../src/platform/local/published-sites.js";
import { SiteTables } from "../../src/platform/local/site-tables.js";
import { DAY, SITES_DOMAIN, startTestEdge, type TestEdge } from "../support/edge-site.js";

const SLUG = "blue-fox-k3";
const HOST = `${SLUG}.sites.test`;

describe("PublishedSites cache", () => {
  let edge: TestEdge;
  let tables: SiteTables;
  let lookup: PublishedSites;

  // Publishes through the real writer, as the platform does: files come from an upload session.
  const publish = (revisionId: string, files: Record<string, string>, hostnames = [HOST]) =>
    edge.publishThroughTables(SLUG, revisionId, files, hostnames);

  beforeEach(async () => {
    edge = await startTestEdge();
    tables = new SiteTables(edge.db);
    lookup = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, now: () => edge.clock.now });
    await publish("aaaaaaaaa1", { "/index.html": "one" });
  });
  afterEach(() => edge.close());

  it("answers repeated lookups from memory, with the same objects", () => {
    const site = lookup.resolve(HOST);
    const file = lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html");
    expect(site).toBeDefined();
    expect(lookup.resolve(HOST)).toBe(site);
    expect(lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBe(file);
    expect(lookup.cached).toEqual({ hosts: 1, files: 1 });
  });

  it("a publish shows on the next lookup with caches warm", async () => {
    expect(lookup.resolve(HOST)?.revisionId).toBe("aaaaaaaaa1");
    expect(lookup.findFile(SLUG, "bbbbbbbbb2", "/index.html")).toBeUndefined();
    await publish("bbbbbbbbb2", { "/index.html": "two" });
    expect(lookup.resolve(HOST)?.revisionId).toBe("bbbbbbbbb2");
    expect(lookup.findFile(SLUG, "bbbbbbbbb2", "/index.html")?.size).toBe(3);
  });

  it("a hostname change shows on the next lookup, on both the old and the new name", () => {
    expect(lookup.resolve(HOST)).toBeDefined();
    expect(lookup.resolve("www.example.com")).toBeUndefined();
    tables.update(SLUG, ["www.example.com"], edge.clock.now + DAY);
    expect(lookup.resolve(HOST)).toBeUndefined();
    expect(lookup.resolve("www.example.com")?.revisionId).toBe("aaaaaaaaa1");
  });

  it("an expiry update shows on the next lookup", () => {
    expect(lookup.resolve(HOST)).toBeDefined();
    tables.update(SLUG, [HOST], edge.clock.now - 1);
    expect(lookup.resolve(HOST)).toBeUndefined();
  });

  it("a removal shows on the next lookup, revision hosts and files included", () => {
    const pinned = `aaaaaaaaa1--${SLUG}.sites.test`;
    expect(lookup.resolve(pinned)?.immutable).toBe(true);
    expect(lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBeDefined();
    tables.remove(SLUG);
    expect(lookup.resolve(HOST)).toBeUndefined();
    expect(lookup.resolve(pinned)).toBeUndefined();
    expect(lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBeUndefined();
  });

  it("expiry is checked against the clock on every lookup, with no write", () => {
    const pinned = `aaaaaaaaa1--${SLUG}.sites.test`;
    expect(lookup.resolve(HOST)).toBeDefined();
    expect(lookup.resolve(pinned)).toBeDefined();
    edge.clock.now += 31 * DAY;
    expect(lookup.resolve(HOST)).toBeUndefined();
    expect(lookup.resolve(pinned)).toBeUndefined();
    // Cached answers do not depend on the time they were read: going back serves again.
    edge.clock.now -= 31 * DAY;
    expect(lookup.resolve(HOST)).toBeDefined();
  });

  it("a write by plain SQL (any writer of the connection) invalidates too", () => {
    expect(lookup.resolve(HOST)).toBeDefined();
    edge.db.prepare("DELETE FROM site_hosts").run();
    expect(lookup.resolve(HOST)).toBeUndefined();
  });

  it("a flood of unknown hosts stays within maxHosts, and lookups stay right", () => {
    const small = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, maxHosts: 5 });
    for (let i = 0; i < 100; i++) expect(small.resolve(`nobody-${i}.sites.test`)).toBeUndefined();
    expect(small.cached.hosts).toBeLessThanOrEqual(5);
    expect(small.resolve(HOST)?.revisionId).toBe("aaaaaaaaa1");
    // Host values too long to be a hostname are never remembered.
    expect(small.resolve(`${"x".repeat(5000)}.sites.test`)).toBeUndefined();
    expect(small.cached.hosts).toBeLessThanOrEqual(5);
  });

  it("a flood of unknown paths stays within maxFiles, and lookups stay right", () => {
    const small = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, maxFiles: 5 });
    for (let i = 0; i < 100; i++) expect(small.findFile(SLUG, "aaaaaaaaa1", `/missing-${i}`)).toBeUndefined();
    expect(small.cached.files).toBeLessThanOrEqual(5);
    expect(small.findFile(SLUG, "aaaaaaaaa1", "/index.html")?.size).toBe(3);
    expect(small.findFile(SLUG, "aaaaaaaaa1", `/${"x".repeat(5000)}`)).toBeUndefined();
    expect(small.cached.files).toBeLessThanOrEqual(5);
  });
});
