import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { hashAsset } from "../../src/core/asset-hash.js";
import { normalizeHost, PublishedSites } from "../../src/platform/selfhost/sites/published-sites.js";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { DAY, SITES_DOMAIN, startTestEdge, type TestEdge } from "../support/edge-site.js";

/** The suite on one engine: SQLite, or PostgreSQL when `postgres` gives where. */
function suite(engine: string, postgres?: () => PostgresOptions): void {
  describe(`PublishedSites on ${engine}`, () => {
    let edge: TestEdge;
    let lookup: PublishedSites;

    beforeEach(async () => {
      edge = await startTestEdge({ postgres: postgres?.() });
      lookup = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, now: () => edge.clock.now });
      await edge.db.manifestHeard();
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

    it("normalizeHost: lowercases and strips a port and one trailing dot", async () => {
      expect(normalizeHost("WWW.Example.COM")).toBe("www.example.com");
      expect(normalizeHost("a.test:8080")).toBe("a.test");
      expect(normalizeHost("a.test.")).toBe("a.test");
      expect(normalizeHost("a.test.:80")).toBe("a.test");
      expect(normalizeHost("a.test..")).toBe("a.test.");
      expect(normalizeHost("[::1]:8080")).toBe("[::1]");
    });

    it("resolve: a production hostname serves the published revision, not immutable", async () => {
      const expected = {
        projectSlug: "blue-fox-k3",
        revisionId: "bbbbbbbbb2",
        immutable: false,
        publishedAt: edge.clock.now,
      };
      expect(await lookup.resolve("blue-fox-k3.sites.test")).toEqual(expected);
      expect(await lookup.resolve("WWW.EXAMPLE.COM.:443")).toEqual(expected);
    });

    it("resolve: a revision host serves that revision, even one not published, as immutable", async () => {
      expect(await lookup.resolve("aaaaaaaaa1--blue-fox-k3.sites.test")).toEqual({
        projectSlug: "blue-fox-k3",
        revisionId: "aaaaaaaaa1",
        immutable: true,
        publishedAt: edge.clock.now,
      });
    });

    it("resolve: a revision host of an unknown revision or project answers nothing", async () => {
      expect(await lookup.resolve("zzzzzzzzz9--blue-fox-k3.sites.test")).toBeUndefined();
      expect(await lookup.resolve("aaaaaaaaa1--red-owl-x1.sites.test")).toBeUndefined();
      expect(await lookup.resolve("aaaaaaaaa1--blue-fox-k3.other.test")).toBeUndefined();
      expect(await lookup.resolve("aaaaaaaaa1--blue--fox.sites.test")).toBeUndefined();
    });

    it("resolve: unknown hosts and the sites domain itself answer nothing", async () => {
      expect(await lookup.resolve("nobody.sites.test")).toBeUndefined();
      expect(await lookup.resolve(SITES_DOMAIN)).toBeUndefined();
      expect(await lookup.resolve("")).toBeUndefined();
    });

    it("resolve: an expired site answers on no host, production or revision", async () => {
      edge.clock.now += 31 * DAY;
      expect(await lookup.resolve("blue-fox-k3.sites.test")).toBeUndefined();
      expect(await lookup.resolve("aaaaaaaaa1--blue-fox-k3.sites.test")).toBeUndefined();
    });

    it("resolve: expiry is exclusive: a site expiring now is gone", async () => {
      const { rows } = await sql<{ expires_at: number }>`SELECT expires_at FROM sites`.execute(edge.db.db);
      const expiresAt = Number(rows[0]!.expires_at);
      edge.clock.now = expiresAt - 1;
      expect(await lookup.resolve("blue-fox-k3.sites.test")).toBeDefined();
      edge.clock.now = expiresAt;
      expect(await lookup.resolve("blue-fox-k3.sites.test")).toBeUndefined();
    });

    it("resolve: a site with no published revision has no production host but keeps revision hosts", async () => {
      await sql`UPDATE sites SET revision_id = NULL`.execute(edge.db.db);
      expect(await lookup.resolve("blue-fox-k3.sites.test")).toBeUndefined();
      expect((await lookup.resolve("aaaaaaaaa1--blue-fox-k3.sites.test"))?.revisionId).toBe("aaaaaaaaa1");
    });

    it("resolve: a new publish shows on the next lookup", async () => {
      await edge.publish({
        slug: "blue-fox-k3",
        revisionId: "ccccccccc3",
        files: { "/index.html": "three" },
      });
      expect((await lookup.resolve("blue-fox-k3.sites.test"))?.revisionId).toBe("ccccccccc3");
    });

    it("findFile: returns hash, size and stored content type of a revision's file", async () => {
      expect(await lookup.findFile("blue-fox-k3", "bbbbbbbbb2", "/index.html")).toEqual({
        hash: await hashAsset(Buffer.from("two"), "/index.html"),
        size: 3,
        contentType: "text/html; charset=utf-8",
      });
      expect((await lookup.findFile("blue-fox-k3", "aaaaaaaaa1", "/index.html"))?.size).toBe(3);
    });

    it("findFile: answers nothing for a missing path, revision or project", async () => {
      expect(await lookup.findFile("blue-fox-k3", "bbbbbbbbb2", "/missing.html")).toBeUndefined();
      expect(await lookup.findFile("blue-fox-k3", "zzzzzzzzz9", "/index.html")).toBeUndefined();
      expect(await lookup.findFile("red-owl-x1", "bbbbbbbbb2", "/index.html")).toBeUndefined();
    });
  });
}

suite("SQLite");
await describePostgres("PostgreSQL", () => suite("PostgreSQL", () => testPostgres()));
