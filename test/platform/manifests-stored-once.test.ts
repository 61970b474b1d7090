import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { manifestDigest } from "../../src/core/manifest-digest.js";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";
import { PublishedSites } from "../../src/platform/selfhost/sites/published-sites.js";
import { firstOf, rowsOf } from "../../src/platform/selfhost/state/platform-db.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { ACCOUNT, hashOf, testPlatform, type TestPlatform, uploadInto } from "../support/test-platform.js";

// Issue 32, "manifests stored once": a revision names a manifest of its project instead of owning
// a copy of its files (sites/manifest-staging.ts). The old code wrote a row per path for every
// revision: 20,000 rows for a preview of an unchanged 20,000-file site, 20,000 for a 1%-changed
// redeploy of it.

type Site = Map<string, string>;

/** A site of `count` paths over 200 distinct contents. */
function siteOf(count: number): Site {
  const site: Site = new Map();
  for (let i = 0; i < count; i++) site.set(`/d${i % 100}/p${i}.html`, `page ${i % 200}`);
  return site;
}

/** `site` with the paths numbered `changed` given new content, `added` added, `removed` gone. */
function changed(site: Site, change: { changed?: number[]; added?: string[]; removed?: number[] }): Site {
  const next = new Map(site);
  for (const i of change.changed ?? []) next.set(`/d${i % 100}/p${i}.html`, `changed ${i} ${next.size}`);
  for (const path of change.added ?? []) next.set(path, `added ${path}`);
  for (const i of change.removed ?? []) next.delete(`/d${i % 100}/p${i}.html`);
  return next;
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

// Prepares of 20,000 paths, and on PostgreSQL a round trip a statement.
const LONG_MS = 120_000;

function suite(postgres?: () => PostgresOptions) {
  let t: TestPlatform;
  afterEach(() => t.remove());
  const open = async () => (t = await testPlatform(undefined, 1_000_000, postgres?.()));

  /**
   * Prepares (with the manifest's digest, as the API does), uploads what is asked, publishes;
   * logs the file rows the publish wrote and its time.
   */
  async function deploy(revisionId: string, site: Site, preview = false): Promise<void> {
    const entries = [...site].map(([path, text]) => ({ path, hash: hashOf(text), size: text.length }));
    const expiresAt = new Date(t.clock.ms + 3_600_000);
    const session = await t.platform.openUploadSession({
      projectSlug: "blue",
      entries,
      expiresAt,
      manifestDigest: manifestDigest(entries),
    });
    const asked = new Set(session.buckets.flat());
    const contents = [...new Set(site.values())].filter((text) => asked.has(hashOf(text)));
    if (contents.length > 0) await uploadInto(t, session.sessionId, contents);
    const completionJwt = await t.tokens.sign(["completion"], session.sessionId, ACCOUNT, expiresAt);
    const before = { rows: await fileRows(), at: performance.now() };
    await t.platform.publishRevision({
      projectSlug: "blue",
      revisionId,
      sessionId: session.sessionId,
      completionJwt,
      hostnames: ["blue.test"],
      expiresAt,
      preview,
    });
    const ms = (performance.now() - before.at).toFixed(0);
    const rows = (await fileRows()) - before.rows;
    console.log(
      `${postgres ? "PostgreSQL" : "SQLite"} ${revisionId}: ${site.size} paths, ${rows} file rows, publish ${ms} ms`,
    );
  }

  /** Rows of a revision's files, whichever table holds them (revision_files before manifests). */
  async function fileRows(): Promise<number> {
    let total = 0;
    for (const table of ["revision_files", "manifest_files"]) {
      const count = sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`;
      const row = await firstOf(t.database.db, count).catch(() => undefined);
      total += Number(row?.n ?? 0);
    }
    return total;
  }

  const manifestOf = async (revisionId: string) =>
    (await firstOf(
      t.database.db,
      sql<{ id: string; base_id: string | null }>`SELECT m.id, m.base_id FROM revisions r
        JOIN manifests m ON m.project_slug = r.project_slug AND m.id = r.manifest_id
        WHERE r.revision_id = ${revisionId}`,
    ))!;

  /**
   * What the edge serves in the revision: each path of `site` whose content is not a first
   * deploy's (changed or added) and every 20th of the others, and nothing at `gone`.
   */
  async function expectServed(revisionId: string, site: Site, gone: string[] = []): Promise<void> {
    const edge = new PublishedSites(t.database, { sitesDomain: "sites.test", now: () => t.clock.ms });
    let unchanged = 0;
    for (const [path, text] of site) {
      if (text.startsWith("page ") && unchanged++ % 20 !== 0) continue;
      const file = await edge.findFile("blue", revisionId, path);
      expect(file?.hash, `${revisionId} ${path}`).toBe(hashOf(text));
      expect((await t.reader.read(file!.hash)).toString(), `${revisionId} ${path}`).toBe(text);
    }
    for (const path of gone) expect(await edge.findFile("blue", revisionId, path), path).toBeUndefined();
  }

  it(
    "publish: a preview of an unchanged 20,000-file site writes no file row and no manifest; a 1%-changed redeploy writes a row per path changed, added or removed (201)",
    async () => {
      await open();
      const site = siteOf(20_000);
      await deploy("r1", site);
      expect(await fileRows()).toBe(20_000);
      await deploy("r2", site, true);
      expect(await fileRows()).toBe(20_000);
      // 199 paths changed, one added, one removed.
      const next = changed(site, {
        changed: range(0, 199).map((i) => i * 100),
        added: ["/new.html"],
        removed: [19_999],
      });
      await deploy("r3", next);
      expect(await fileRows()).toBe(20_000 + 201);
      const manifests = await rowsOf(t.database.db, sql<{ id: string }>`SELECT id FROM manifests`);
      expect(manifests).toHaveLength(2);
      expect((await manifestOf("r2")).id).toBe((await manifestOf("r1")).id);
      await expectServed("r3", next, ["/d99/p19999.html"]);
    },
    LONG_MS,
  );

  it(
    "findFile: after a chain of redeploys, each a delta of a full manifest (never of a delta), the edge serves changed, unchanged, added and removed paths right; past 25% changed a manifest is whole",
    async () => {
      await open();
      const v1 = siteOf(1_000);
      await deploy("r1", v1);
      const v2 = changed(v1, { changed: range(0, 10), added: ["/a.html"], removed: range(900, 5) });
      await deploy("r2", v2);
      // From production (r2, a delta): a delta of r1's full manifest, restoring a path r2 removed.
      const v3 = changed(v2, { changed: range(10, 10), removed: range(950, 3) });
      v3.set("/d0/p900.html", "back again");
      await deploy("r3", v3);
      const full = (await manifestOf("r1")).id;
      expect((await manifestOf("r1")).base_id).toBeNull();
      expect((await manifestOf("r2")).base_id).toBe(full);
      expect((await manifestOf("r3")).base_id).toBe(full);
      const removedIn = (site: Site) => [...v1.keys(), "/a.html"].filter((path) => !site.has(path));
      await expectServed("r1", v1, ["/a.html"]);
      await expectServed("r2", v2, removedIn(v2));
      await expectServed("r3", v3, removedIn(v3));
      // 300 of 1,000 changed: whole, and the next small change is a delta of it.
      const v4 = changed(v3, { changed: range(100, 300) });
      await deploy("r4", v4);
      expect((await manifestOf("r4")).base_id).toBeNull();
      const v5 = changed(v4, { changed: [500] });
      await deploy("r5", v5);
      expect((await manifestOf("r5")).base_id).toBe((await manifestOf("r4")).id);
      await expectServed("r4", v4);
      await expectServed("r5", v5, removedIn(v5));
      await expectServed("r3", v3, removedIn(v3));
    },
    LONG_MS,
  );

  it(
    "prune, collectGarbage: a base no kept revision names stays while a delta has it, with the blobs only it names; the project's removal takes every manifest and blob",
    async () => {
      await open();
      const v1 = siteOf(400);
      await deploy("r1", v1);
      const v2 = changed(v1, { changed: range(0, 10) });
      await deploy("r2", v2);
      await t.platform.pruneRevisions("blue", ["r1"]);
      t.clock.ms += 7_200_000;
      await t.platform.collectGarbage();
      expect(await rowsOf(t.database.db, sql`SELECT id FROM manifests`)).toHaveLength(2);
      await expectServed("r2", v2);
      await t.platform.unpublishProject("blue");
      await t.platform.collectGarbage();
      for (const table of ["manifests", "manifest_files", "revisions", "blobs"]) {
        expect(await rowsOf(t.database.db, sql`SELECT * FROM ${sql.table(table)}`), table).toEqual([]);
      }
    },
    LONG_MS,
  );
}

describe("manifests stored once on SQLite", () => suite());
await describePostgres("manifests stored once on PostgreSQL", () => {
  suite(testPostgres);
});
