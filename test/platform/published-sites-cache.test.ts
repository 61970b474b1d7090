import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Kysely, type KyselyPlugin, sql, SqliteDialect } from "kysely";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import { PublishedSites } from "../../src/platform/selfhost/sites/published-sites.js";
import { manifestGeneration } from "../../src/platform/selfhost/sites/manifest-generation.js";
import type { PlatformDatabase } from "../../src/platform/selfhost/state/platform-db.js";
import { MANIFEST_CHANNEL } from "../../src/platform/selfhost/state/platform-tables.js";
import { SiteTables } from "../../src/platform/selfhost/sites/site-tables.js";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { DAY, SITES_DOMAIN, startTestEdge, type TestEdge } from "../support/edge-site.js";

const SLUG = "blue-fox-k3";
const HOST = `${SLUG}.sites.test`;
const OTHER = "green-owl-q7";
const OTHER_HOST = `${OTHER}.sites.test`;
// A project named last, whose notification tells that every earlier one was heard.
const SENTINEL = "last-word-z9";

/** Counts the statements `lookup` sends to the database (it reads through its own `db`). */
function countReads(lookup: PublishedSites, database: PlatformDatabase): { n: number } {
  const reads = { n: 0 };
  const counting: KyselyPlugin = {
    transformQuery: ({ node }) => (reads.n++, node),
    transformResult: async ({ result }) => result,
  };
  (lookup as unknown as { db: unknown }).db = database.db.withPlugin(counting);
  return reads;
}

/** The suite on one engine: SQLite, or PostgreSQL when `postgres` gives where. */
function suite(engine: string, postgres?: () => PostgresOptions): void {
  describe(`PublishedSites cache on ${engine}`, () => {
    let edge: TestEdge;
    let tables: SiteTables;
    let lookup: PublishedSites;
    let options: (PostgresOptions & { schema?: string }) | undefined;

    // Publishes through the real writer, as the platform does: files come from an upload session.
    const publish = (revisionId: string, files: Record<string, string>, hostnames = [HOST]) =>
      edge.publishThroughTables(SLUG, revisionId, files, hostnames);

    beforeEach(async () => {
      options = postgres?.();
      edge = await startTestEdge({ postgres: options });
      tables = new SiteTables(edge.db);
      lookup = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, now: () => edge.clock.now });
      // On PostgreSQL the caches are dropped once when the edge starts hearing other processes.
      await edge.db.manifestHeard();
      await publish("aaaaaaaaa1", { "/index.html": "one" });
      // Its notifications too (this process hears its own that name a project), so none comes later.
      await heardSoFar();
    });
    afterEach(() => edge.close());

    /** Returns once every write so far is known here: at once on SQLite, once heard on PostgreSQL. */
    const heardSoFar = async () => {
      if (options === undefined) return;
      const generation = manifestGeneration(edge.db);
      const before = generation.value;
      // Notifications come in commit order: this one, committed last, is heard last.
      const payload = `${options.schema} sentinel\n${SENTINEL}`;
      await sql`SELECT pg_notify(${MANIFEST_CHANNEL}, ${payload})`.execute(edge.db.db);
      await expect.poll(() => generation.changedAt(SENTINEL)).toBeGreaterThan(before);
    };

    it("answers repeated lookups from memory, with the same objects", async () => {
      const site = await lookup.resolve(HOST);
      const file = await lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html");
      expect(site).toBeDefined();
      expect(await lookup.resolve(HOST)).toBe(site);
      expect(await lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBe(file);
      expect(lookup.cached).toEqual({ hosts: 1, files: 1 });
    });

    it("resolve: a remembered host is answered without a promise (the edge's hot path makes none)", async () => {
      const first = lookup.resolve(HOST);
      expect(first).toBeInstanceOf(Promise);
      const site = await first;
      expect(lookup.resolve(HOST)).toBe(site);
      await publish("bbbbbbbbb2", { "/index.html": "two" });
      await heardSoFar();
      // A write of its project: read again, once.
      expect(lookup.resolve(HOST)).toBeInstanceOf(Promise);
    });

    it("a publish shows on the next lookup with caches warm", async () => {
      expect((await lookup.resolve(HOST))?.revisionId).toBe("aaaaaaaaa1");
      expect(await lookup.findFile(SLUG, "bbbbbbbbb2", "/index.html")).toBeUndefined();
      await publish("bbbbbbbbb2", { "/index.html": "two" });
      expect((await lookup.resolve(HOST))?.revisionId).toBe("bbbbbbbbb2");
      expect((await lookup.findFile(SLUG, "bbbbbbbbb2", "/index.html"))?.size).toBe(3);
    });

    it("a hostname change shows on the next lookup, on both the old and the new name", async () => {
      expect(await lookup.resolve(HOST)).toBeDefined();
      expect(await lookup.resolve("www.example.com")).toBeUndefined();
      await tables.update(SLUG, ["www.example.com"], edge.clock.now + DAY);
      expect(await lookup.resolve(HOST)).toBeUndefined();
      expect((await lookup.resolve("www.example.com"))?.revisionId).toBe("aaaaaaaaa1");
    });

    it("an expiry update shows on the next lookup", async () => {
      expect(await lookup.resolve(HOST)).toBeDefined();
      await tables.update(SLUG, [HOST], edge.clock.now - 1);
      expect(await lookup.resolve(HOST)).toBeUndefined();
    });

    it("a removal shows on the next lookup, revision hosts and files included", async () => {
      const pinned = `aaaaaaaaa1--${SLUG}.sites.test`;
      expect((await lookup.resolve(pinned))?.immutable).toBe(true);
      expect(await lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBeDefined();
      await tables.remove(SLUG);
      expect(await lookup.resolve(HOST)).toBeUndefined();
      expect(await lookup.resolve(pinned)).toBeUndefined();
      expect(await lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBeUndefined();
    });

    it("expiry is checked against the clock on every lookup, with no write", async () => {
      const pinned = `aaaaaaaaa1--${SLUG}.sites.test`;
      expect(await lookup.resolve(HOST)).toBeDefined();
      expect(await lookup.resolve(pinned)).toBeDefined();
      edge.clock.now += 31 * DAY;
      expect(await lookup.resolve(HOST)).toBeUndefined();
      expect(await lookup.resolve(pinned)).toBeUndefined();
      // Cached answers do not depend on the time they were read: going back serves again.
      edge.clock.now -= 31 * DAY;
      expect(await lookup.resolve(HOST)).toBeDefined();
    });

    it("a write by plain SQL invalidates too: any writer's at once on SQLite, another process's within 1 s on PostgreSQL", async () => {
      expect(await lookup.resolve(HOST)).toBeDefined();
      if (options === undefined) {
        await sql`DELETE FROM site_hosts`.execute(edge.db.db);
        expect(await lookup.resolve(HOST)).toBeUndefined();
        return;
      }
      // PostgreSQL's trigger notifies at the commit; the edge hears it on its own connection.
      const other = await openPlatformDatabase("", options);
      try {
        await sql`DELETE FROM site_hosts`.execute(other.db);
        await within(1_000, async () => expect(await lookup.resolve(HOST)).toBeUndefined());
      } finally {
        await other.close();
      }
    });

    describe("per project", () => {
      let other: PlatformDatabase | undefined;
      // On SQLite this process writes (its triggers name the project); on PostgreSQL another
      // process does, so only the notifications can tell this one which project moved.
      let writer: SiteTables;
      beforeEach(async () => {
        other = options === undefined ? undefined : await openPlatformDatabase("", options);
        writer = other === undefined ? tables : new SiteTables(other);
      });
      afterEach(() => other?.close());

      it("publish: a promote of one project drops its lookups and keeps another project's, with no database read for them", async () => {
        await edge.publishThroughTables(OTHER, "ddddddddd4", { "/index.html": "other" }, [OTHER_HOST]);
        await edge.addRevision({
          slug: SLUG,
          revisionId: "bbbbbbbbb2",
          files: { "/index.html": "two", "/_redirects": "/old /new 301\n" },
        });
        await heardSoFar();
        const reads = countReads(lookup, edge.db);
        const warm = async () => ({
          site: await lookup.resolve(HOST),
          file: await lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html"),
          rules: await lookup.rulesOf(SLUG, "bbbbbbbbb2"),
          otherSite: await lookup.resolve(OTHER_HOST),
          otherFile: await lookup.findFile(OTHER, "ddddddddd4", "/index.html"),
          otherRules: await lookup.rulesOf(OTHER, "ddddddddd4"),
        });
        const before = await warm();
        expect(before.site?.revisionId).toBe("aaaaaaaaa1");
        expect(before.otherSite?.revisionId).toBe("ddddddddd4");
        const cold = reads.n;
        expect(await warm()).toEqual(before);
        expect(reads.n).toBe(cold);

        expect(await writer.promote(SLUG, "bbbbbbbbb2", edge.clock.now)).toBe(true);
        await heardSoFar();
        reads.n = 0;
        expect(await lookup.resolve(OTHER_HOST)).toBe(before.otherSite);
        expect(await lookup.findFile(OTHER, "ddddddddd4", "/index.html")).toBe(before.otherFile);
        expect(await lookup.rulesOf(OTHER, "ddddddddd4")).toBe(before.otherRules);
        expect(reads.n).toBe(0);
        expect((await lookup.resolve(HOST))?.revisionId).toBe("bbbbbbbbb2");
        const afterHost = reads.n;
        expect(afterHost).toBeGreaterThan(0);
        expect(await lookup.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toEqual(before.file);
        expect(reads.n).toBe(afterHost + 1);
        expect(await lookup.rulesOf(SLUG, "bbbbbbbbb2")).not.toBe(before.rules);
        expect(reads.n).toBe(afterHost + 2);
      });

      it("update: a hostname taken over by another project shows on the next lookup, for both projects", async () => {
        await writer.update(SLUG, [HOST, "www.example.com"], edge.clock.now + DAY);
        await edge.publishThroughTables(OTHER, "ddddddddd4", { "/index.html": "other" }, [OTHER_HOST]);
        await heardSoFar();
        expect((await lookup.resolve("www.example.com"))?.projectSlug).toBe(SLUG);
        expect((await lookup.resolve(OTHER_HOST))?.projectSlug).toBe(OTHER);
        await writer.update(OTHER, [OTHER_HOST, "www.example.com"], edge.clock.now + DAY);
        await heardSoFar();
        expect((await lookup.resolve("www.example.com"))?.projectSlug).toBe(OTHER);
        expect((await lookup.resolve(HOST))?.projectSlug).toBe(SLUG);
      });

      it("update: a hostname this process takes over for another project leaves no stale entry (PostgreSQL: once its own notification is heard)", async () => {
        await tables.update(SLUG, [HOST, "www.example.com"], edge.clock.now + DAY);
        await edge.publishThroughTables(OTHER, "ddddddddd4", { "/index.html": "other" }, [OTHER_HOST]);
        await heardSoFar();
        expect((await lookup.resolve("www.example.com"))?.projectSlug).toBe(SLUG);
        // This process tells its readers of OTHER at once; SLUG, which lost the name, only its trigger names.
        await tables.update(OTHER, [OTHER_HOST, "www.example.com"], edge.clock.now + DAY);
        await heardSoFar();
        expect((await lookup.resolve("www.example.com"))?.projectSlug).toBe(OTHER);
      });

      it("resolve: a Host no project holds is remembered until any project's write, which may take it", async () => {
        expect(await lookup.resolve("www.example.com")).toBeUndefined();
        const reads = countReads(lookup, edge.db);
        expect(await lookup.resolve("www.example.com")).toBeUndefined();
        expect(reads.n).toBe(0);
        await writer.update(OTHER, ["www.example.com"], edge.clock.now + DAY);
        await heardSoFar();
        // OTHER has no revision yet: the name is held but serves nothing; it was read again.
        expect(await lookup.resolve("www.example.com")).toBeUndefined();
        expect(reads.n).toBeGreaterThan(0);
      });
    });

    it.runIf(postgres !== undefined)(
      "another process's writes show within 1 s: through the notification, and while its connection is down",
      async () => {
        const other = await openPlatformDatabase("", options);
        try {
          const tables = new SiteTables(other);
          expect(await lookup.resolve(HOST)).toBeDefined();
          await tables.update(SLUG, ["www.example.com"], edge.clock.now + DAY);
          await within(1_000, async () => expect(await lookup.resolve(HOST)).toBeUndefined());
          expect((await lookup.resolve("www.example.com"))?.revisionId).toBe("aaaaaaaaa1");
          // The edge's notification connection cut: the periodic check still drops the caches.
          await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = ${`manifest listener ${options!.schema}`}`.execute(other.db);
          await tables.remove(SLUG);
          await within(1_500, async () => expect(await lookup.resolve("www.example.com")).toBeUndefined());
        } finally {
          await other.close();
        }
      },
    );

    it("a flood of unknown hosts stays within maxHosts, and lookups stay right", async () => {
      const small = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, maxHosts: 5 });
      for (let i = 0; i < 3; i++) await small.resolve(`nobody-${i}.sites.test`);
      expect(small.cached.hosts).toBe(3);
      for (let i = 3; i < 100; i++) expect(await small.resolve(`nobody-${i}.sites.test`)).toBeUndefined();
      expect(small.cached.hosts).toBe(5);
      expect((await small.resolve(HOST))?.revisionId).toBe("aaaaaaaaa1");
      // Host values too long to be a hostname are never remembered.
      expect(await small.resolve(`${"x".repeat(5000)}.sites.test`)).toBeUndefined();
      expect(small.cached.hosts).toBeLessThanOrEqual(5);
    });

    it("a flood of unknown paths stays within maxFiles, and lookups stay right", async () => {
      const small = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, maxFiles: 5 });
      for (let i = 0; i < 5; i++) await small.findFile(SLUG, "aaaaaaaaa1", `/missing-${i}`);
      expect(small.cached.files).toBe(5);
      // Full: everything is dropped for the sixth.
      await small.findFile(SLUG, "aaaaaaaaa1", "/missing-5");
      expect(small.cached.files).toBe(1);
      for (let i = 6; i < 100; i++)
        expect(await small.findFile(SLUG, "aaaaaaaaa1", `/missing-${i}`)).toBeUndefined();
      expect(small.cached.files).toBeLessThanOrEqual(5);
      expect((await small.findFile(SLUG, "aaaaaaaaa1", "/index.html"))?.size).toBe(3);
      expect(await small.findFile(SLUG, "aaaaaaaaa1", `/${"x".repeat(5000)}`)).toBeUndefined();
      expect(small.cached.files).toBeLessThanOrEqual(5);
    });

    it("a Host value or a path longer than any real one is looked up but never remembered; up to the bound it is", async () => {
      const fresh = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN });
      const host = (length: number) => `${"x".repeat(length - ".sites.test".length)}.sites.test`;
      expect(await fresh.resolve(host(261))).toBeUndefined();
      expect(fresh.cached.hosts).toBe(0);
      await fresh.resolve(host(260));
      expect(fresh.cached.hosts).toBe(1);
      expect(await fresh.findFile(SLUG, "aaaaaaaaa1", `/${"x".repeat(1024)}`)).toBeUndefined();
      expect(fresh.cached.files).toBe(0);
      await fresh.findFile(SLUG, "aaaaaaaaa1", `/${"x".repeat(1023)}`);
      expect(fresh.cached.files).toBe(1);
    });

    it("lookups of several revisions and paths at once are all remembered", async () => {
      await publish("bbbbbbbbb2", { "/index.html": "two", "/about.html": "about" });
      await heardSoFar();
      const fresh = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN });
      const [one, two, about] = await Promise.all([
        fresh.findFile(SLUG, "aaaaaaaaa1", "/index.html"),
        fresh.findFile(SLUG, "bbbbbbbbb2", "/index.html"),
        fresh.findFile(SLUG, "bbbbbbbbb2", "/about.html"),
      ]);
      expect([one?.size, two?.size, about?.size]).toEqual([3, 3, 5]);
      expect(fresh.cached.files).toBe(3);
      expect(await fresh.findFile(SLUG, "aaaaaaaaa1", "/index.html")).toBe(one);
      expect(await fresh.findFile(SLUG, "bbbbbbbbb2", "/index.html")).toBe(two);
      expect(await fresh.findFile(SLUG, "bbbbbbbbb2", "/about.html")).toBe(about);
    });

    it("a site stops answering at the very millisecond it expires, on its revision hosts too", async () => {
      const pinned = `aaaaaaaaa1--${SLUG}.sites.test`;
      await tables.update(SLUG, [HOST], edge.clock.now + 1);
      expect(await lookup.resolve(HOST)).toBeDefined();
      expect(await lookup.resolve(pinned)).toBeDefined();
      edge.clock.now += 1;
      expect(await lookup.resolve(HOST)).toBeUndefined();
      expect(await lookup.resolve(pinned)).toBeUndefined();
    });

    it("resolve: a hostname other than the canonical one names the canonical URL; the canonical one does not", async () => {
      const canonical = { hostname: "www.example.com", url: "https://www.example.com/" };
      await tables.update(SLUG, [HOST, "www.example.com"], edge.clock.now + DAY, canonical);
      expect(await lookup.resolve(HOST)).toEqual({
        projectSlug: SLUG,
        revisionId: "aaaaaaaaa1",
        immutable: false,
        publishedAt: expect.any(Number),
        canonicalUrl: "https://www.example.com/",
      });
      expect(await lookup.resolve("www.example.com")).not.toHaveProperty("canonicalUrl");
    });

    it("rulesOf: a revision's compiled rules, its own, kept until the next write", async () => {
      await edge.addRevision({
        slug: SLUG,
        revisionId: "bbbbbbbbb2",
        files: { "/index.html": "two", "/_redirects": "/old /new 301\n" },
      });
      await edge.addRevision({
        slug: SLUG,
        revisionId: "ccccccccc3",
        files: { "/index.html": "three", "/_redirects": "/old /other 302\n" },
      });
      await heardSoFar();
      const two = await lookup.rulesOf(SLUG, "bbbbbbbbb2");
      const three = await lookup.rulesOf(SLUG, "ccccccccc3");
      expect(two.redirectFor("/old", "")).toMatchObject({ location: "/new", status: 301 });
      expect(three.redirectFor("/old", "")).toMatchObject({ location: "/other", status: 302 });
      expect((await lookup.rulesOf(SLUG, "aaaaaaaaa1")).empty).toBe(true);
      expect(await lookup.rulesOf(SLUG, "bbbbbbbbb2")).toBe(two);
      expect(await lookup.rulesOf(SLUG, "ccccccccc3")).toBe(three);
      await tables.update(SLUG, [HOST], edge.clock.now + DAY);
      const again = await lookup.rulesOf(SLUG, "bbbbbbbbb2");
      expect(again).not.toBe(two);
      expect(again.redirectFor("/old", "")).toMatchObject({ location: "/new", status: 301 });
    });

    // SQLite only: there a write bumps the generation at once, where PostgreSQL's notifications
    // also drop the caches at moments of their own, which would hide a stale entry.
    it.runIf(postgres === undefined)(
      "rulesOf: rules read before a write are used once, never kept, even after another lookup has dropped the caches for it",
      async () => {
        let release!: () => void;
        let reached!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const atGate = new Promise<void>((resolve) => (reached = resolve));
        let armed = true;
        const gate: KyselyPlugin = {
          transformQuery: ({ node }) => node,
          transformResult: async ({ result }) => {
            if (armed) {
              armed = false;
              reached();
              await held;
            }
            return result;
          },
        };
        const racing = new PublishedSites(edge.db, { sitesDomain: SITES_DOMAIN, now: () => edge.clock.now });
        // Its reads go through a connection of their own that holds the first result at the gate,
        // so the write and the other lookup's start run while that read is in flight.
        const reads = new Kysely<unknown>({
          // The edge's own SQLite connection, which destroying this Kysely must leave open.
          dialect: new SqliteDialect({
            database: { prepare: (text: string) => edge.db.sqlite!.prepare(text), close: () => undefined },
          }),
          plugins: [gate],
        });
        (racing as unknown as { db: Kysely<unknown> }).db = reads;
        try {
          const first = racing.rulesOf(SLUG, "bbbbbbbbb2");
          await atGate;
          await edge.addRevision({
            slug: SLUG,
            revisionId: "bbbbbbbbb2",
            files: { "/index.html": "two", "/_redirects": "/old /new 301\n" },
          });
          const other = racing.resolve(HOST);
          release();
          expect((await first).empty).toBe(true);
          expect((await other)?.revisionId).toBe("aaaaaaaaa1");
          const rules = await racing.rulesOf(SLUG, "bbbbbbbbb2");
          expect(rules.redirectFor("/old", "")).toMatchObject({ location: "/new", status: 301 });
        } finally {
          release();
          await reads.destroy();
        }
      },
    );

    it("rulesOf: at most 256 revisions' rules are kept; the 257th drops them all", async () => {
      const first = await lookup.rulesOf(SLUG, "r000000000");
      for (let i = 1; i < 256; i++) await lookup.rulesOf(SLUG, `r${String(i).padStart(9, "0")}`);
      expect(await lookup.rulesOf(SLUG, "r000000000")).toBe(first);
      await lookup.rulesOf(SLUG, "r000000256");
      expect(await lookup.rulesOf(SLUG, "r000000000")).not.toBe(first);
    });
  });
}

suite("SQLite");
await describePostgres("PostgreSQL", () => suite("PostgreSQL", () => testPostgres()));

/** Checks `expectation` until it holds, failing after `ms`: what another process does lands by then. */
function within(ms: number, expectation: () => Promise<void>): Promise<void> {
  return vi.waitFor(expectation, { timeout: ms, interval: 10 });
}
