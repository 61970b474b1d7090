import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { manifestDigest } from "../../src/core/manifest-digest.js";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";
import { PublishedSites } from "../../src/platform/selfhost/sites/published-sites.js";
import { firstOf, rowsOf } from "../../src/platform/selfhost/state/platform-db.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { ACCOUNT, hashOf, testPlatform, type TestPlatform } from "../support/test-platform.js";

// Issue 32, delta sessions (sessions/delta-open.ts): a prepare of a project with a full manifest
// writes rows only for the paths added, changed or removed, and its publish writes them as a delta
// of that manifest. The old code wrote a session row per path of the site (10,000 for a 1% change).

type Site = Map<string, string>;

/** A site of `count` paths over 200 distinct contents. */
function siteOf(count: number): Site {
  const site: Site = new Map();
  for (let i = 0; i < count; i++) site.set(`/d${i % 100}/p${i}.html`, `page ${i % 200}`);
  return site;
}

const HEADERS = "/*\n  X-Frame-Options: DENY\n";
const REDIRECTS = "/old /new 301\n";
const LONG_MS = 120_000;

function suite(postgres?: () => PostgresOptions) {
  let t: TestPlatform;
  afterEach(() => t.remove());
  const open = async () => (t = await testPlatform(undefined, 1_000_000, postgres?.()));
  const engine = postgres ? "PostgreSQL" : "SQLite";

  /** Prepares `site` for `project` (with its digest, as the API does); returns the session's id. */
  async function prepare(project: string, site: Site): Promise<{ sessionId: string; asked: Set<string> }> {
    const entries = [...site].map(([path, text]) => ({ path, hash: hashOf(text), size: text.length }));
    const session = await t.platform.openUploadSession({
      projectSlug: project,
      entries,
      expiresAt: new Date(t.clock.ms + 3_600_000),
      manifestDigest: manifestDigest(entries),
    });
    return { sessionId: session.sessionId, asked: new Set(session.buckets.flat()) };
  }

  /** Uploads what the session asked for (`types`: media types declared by content), publishes it. */
  async function complete(
    project: string,
    revisionId: string,
    site: Site,
    opened: { sessionId: string; asked: Set<string> },
    types: Map<string, string> = new Map(),
  ): Promise<void> {
    const contents = [...new Set(site.values())].filter((text) => opened.asked.has(hashOf(text)));
    if (contents.length > 0) {
      const writer = t.files.packs.newWriter();
      const blobs = [];
      for (const text of contents) {
        blobs.push({ hash: hashOf(text), size: Buffer.byteLength(text), offset: writer.length });
        await writer.append(Buffer.from(text));
      }
      const pack = await t.files.storage.commit(writer);
      const mediaTypes = [...types]
        .filter(([text]) => contents.includes(text))
        .map(([text, mediaType]) => ({ hash: hashOf(text), mediaType }));
      await t.sessions.record(opened.sessionId, { pack: { ...pack, blobs }, mediaTypes }, t.clock.ms);
    }
    const expiresAt = new Date(t.clock.ms + 3_600_000);
    const completionJwt = await t.tokens.sign(["completion"], opened.sessionId, ACCOUNT, expiresAt);
    await t.platform.publishRevision({
      projectSlug: project,
      revisionId,
      sessionId: opened.sessionId,
      completionJwt,
      hostnames: [`${project}.test`],
      expiresAt,
    });
  }

  const deploy = async (project: string, revisionId: string, site: Site, types?: Map<string, string>) =>
    complete(project, revisionId, site, await prepare(project, site), types);

  const count = async (table: string, sessionId: string) =>
    Number(
      (await firstOf(
        t.database.db,
        sql<{
          n: number | string;
        }>`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE session_id = ${sessionId}`,
      ))!.n,
    );

  const baseOfSession = async (sessionId: string) =>
    (await firstOf(
      t.database.db,
      sql<{
        base_manifest_id: string | null;
      }>`SELECT base_manifest_id FROM upload_sessions WHERE id = ${sessionId}`,
    ))!.base_manifest_id;

  /** Each path's file as the edge finds it in the revision (hash, size, media type), or null. */
  async function served(project: string, revisionId: string, paths: Iterable<string>) {
    const edge = new PublishedSites(t.database, { sitesDomain: "sites.test", now: () => t.clock.ms });
    const files: Record<string, unknown> = {};
    for (const path of paths) files[path] = (await edge.findFile(project, revisionId, path)) ?? null;
    return files;
  }

  it(
    "openUploadSession: a 1%-changed prepare of a 10,000-file site writes a session row per path changed, added or removed (102), not one per path of the site; its publish serves them",
    async () => {
      await open();
      const site = siteOf(10_000);
      await deploy("blue", "r1", site);
      const next = new Map(site);
      for (let i = 0; i < 100; i++) next.set(`/d0/p${i * 100}.html`, `changed ${i}`);
      next.set("/new.html", "new page");
      next.delete("/d99/p9999.html");
      const at = performance.now();
      const opened = await prepare("blue", next);
      const ms = (performance.now() - at).toFixed(0);
      const assets = await count("session_assets", opened.sessionId);
      const hashes = await count("session_hashes", opened.sessionId);
      console.log(
        `${engine}: 1%-changed prepare of 10,000 paths: ${assets} session rows, ${hashes} hashes, ${ms} ms`,
      );
      expect(assets).toBe(102);
      expect(hashes).toBe(101);
      expect(opened.asked.size).toBe(101);
      await complete("blue", "r2", next, opened);
      await t.platform.settled();
      expect(await count("session_assets", opened.sessionId)).toBe(0);
      const paths = ["/new.html", "/d99/p9999.html", "/d0/p0.html", "/d0/p500.html", "/d1/p1.html"];
      const files = await served("blue", "r2", paths);
      expect(files["/d99/p9999.html"]).toBeNull();
      for (const path of paths.filter((p) => p !== "/d99/p9999.html")) {
        expect(files[path], path).toMatchObject({ hash: hashOf(next.get(path)!) });
      }
    },
    LONG_MS,
  );

  it(
    "publishRevision: a delta session publishes, path for path, what a whole session of the same files publishes (changed, added, removed, unchanged rules files, a media type an upload declared for a changed path), and the same rules",
    async () => {
      await open();
      const site = siteOf(400);
      site.set("/_headers", HEADERS);
      site.set("/_redirects", REDIRECTS);
      site.set("/data.bin", "data v1");
      await deploy("blue", "r1", site);
      const next = new Map(site);
      for (let i = 0; i < 20; i++) next.set(`/d${i}/p${i}.html`, `changed ${i}`);
      next.set("/data.bin", "data v2");
      next.set("/added.bin", "added");
      for (let i = 390; i < 395; i++) next.delete(`/d${i % 100}/p${i}.html`);
      const types = new Map([
        ["data v2", "application/x-custom"],
        ["added", "image/x-custom"],
      ]);
      const opened = await prepare("blue", next);
      expect(await baseOfSession(opened.sessionId)).not.toBeNull();
      await complete("blue", "r2", next, opened, types);
      // The same files in a project of its own: a whole session.
      await deploy("green", "r2", next, types);
      const paths = new Set([...site.keys(), ...next.keys()]);
      expect(await served("blue", "r2", paths)).toEqual(await served("green", "r2", paths));
      expect((await served("blue", "r2", ["/data.bin"]))["/data.bin"]).toMatchObject({
        contentType: "application/x-custom",
      });
      const rules = await rowsOf(
        t.database.db,
        sql<{ project_slug: string; rules: string }>`SELECT project_slug, rules FROM revision_rules
          WHERE revision_id = 'r2' ORDER BY project_slug`,
      );
      expect(rules.map((row) => row.project_slug)).toEqual(["blue", "green"]);
      expect(rules[0]!.rules).toBe(rules[1]!.rules);
    },
    LONG_MS,
  );

  it(
    "publishRevision: a delta session that changes `_headers` and removes `_redirects` records the rules a whole session of its files records",
    async () => {
      await open();
      const site = siteOf(40);
      site.set("/_headers", HEADERS);
      site.set("/_redirects", REDIRECTS);
      await deploy("blue", "r1", site);
      const next = new Map(site);
      next.set("/_headers", "/*\n  X-Frame-Options: SAMEORIGIN\n");
      next.delete("/_redirects");
      const opened = await prepare("blue", next);
      expect(await baseOfSession(opened.sessionId)).not.toBeNull();
      await complete("blue", "r2", next, opened);
      await deploy("green", "r2", next);
      const rules = await rowsOf(
        t.database.db,
        sql<{
          rules: string;
        }>`SELECT rules FROM revision_rules WHERE revision_id = 'r2' ORDER BY project_slug`,
      );
      expect(rules).toHaveLength(2);
      expect(rules[0]!.rules).toBe(rules[1]!.rules);
      expect(rules[0]!.rules).toContain("SAMEORIGIN");
      expect(rules[0]!.rules).not.toContain("/old");
    },
    LONG_MS,
  );

  it(
    "publishRevision: an unchanged path of a delta session keeps the media type an upload declared for it in the base, as a manifest shared by digest does",
    async () => {
      await open();
      const site = siteOf(40);
      site.set("/data.bin", "data v1");
      await deploy("blue", "r1", site, new Map([["data v1", "application/x-declared"]]));
      const next = new Map(site);
      next.set("/d0/p0.html", "changed");
      const opened = await prepare("blue", next);
      expect(await baseOfSession(opened.sessionId)).not.toBeNull();
      await complete("blue", "r2", next, opened);
      const files = await served("blue", "r2", ["/data.bin", "/d0/p0.html"]);
      expect(files["/data.bin"]).toMatchObject({
        hash: hashOf("data v1"),
        contentType: "application/x-declared",
      });
      expect(files["/d0/p0.html"]).toMatchObject({
        hash: hashOf("changed"),
        contentType: "text/html; charset=utf-8",
      });
    },
    LONG_MS,
  );

  it(
    "prune, collectGarbage: a delta session's base stays while the session is open, no revision naming it any more, with the blobs only it names; once the session is published, the base is its delta's",
    async () => {
      await open();
      const site = siteOf(400);
      await deploy("blue", "r1", site);
      const next = new Map(site);
      next.set("/d0/p0.html", "changed");
      const opened = await prepare("blue", next);
      const base = await baseOfSession(opened.sessionId);
      expect(base).not.toBeNull();
      // Production moves to a whole manifest of other content; r1 goes.
      const other = new Map([...site.keys()].map((path) => [path, `other ${path}`]));
      await deploy("blue", "r2", other);
      await t.platform.pruneRevisions("blue", ["r1"]);
      await t.platform.collectGarbage();
      const ids = async () =>
        (await rowsOf(t.database.db, sql<{ id: string }>`SELECT id FROM manifests`)).map((row) => row.id);
      expect(await ids()).toContain(base);
      await complete("blue", "r3", next, opened);
      await t.platform.collectGarbage();
      const files = await served("blue", "r3", ["/d0/p0.html", "/d1/p1.html", "/d7/p207.html"]);
      for (const [path, file] of Object.entries(files)) {
        expect(file, path).toMatchObject({ hash: hashOf(next.get(path)!) });
        const hash = (file as { hash: string }).hash;
        expect((await t.reader.read(hash)).toString()).toBe(next.get(path));
      }
      expect(await ids()).toContain(base);
    },
    LONG_MS,
  );

  it(
    "openUploadSession: an unchanged path whose blob is damaged is asked for again, as a whole session asks; a change over a quarter of the base's files opens the session whole",
    async () => {
      await open();
      const site = siteOf(400);
      await deploy("blue", "r1", site);
      await sql`UPDATE blobs SET damaged = 1 WHERE hash = ${hashOf("page 7")}`.execute(t.database.db);
      const next = new Map(site);
      next.set("/d0/p0.html", "changed");
      const opened = await prepare("blue", next);
      expect(await baseOfSession(opened.sessionId)).not.toBeNull();
      expect(opened.asked).toEqual(new Set([hashOf("changed"), hashOf("page 7")]));
      const most = new Map(site);
      for (let i = 0; i < 101; i++) most.set(`/d${i % 100}/p${i}.html`, `changed ${i}`);
      const whole = await prepare("blue", most);
      expect(await baseOfSession(whole.sessionId)).toBeNull();
      expect(await count("session_assets", whole.sessionId)).toBe(400);
    },
    LONG_MS,
  );
}

describe("delta sessions on SQLite", () => suite());
await describePostgres("delta sessions on PostgreSQL", () => {
  suite(testPostgres);
});
