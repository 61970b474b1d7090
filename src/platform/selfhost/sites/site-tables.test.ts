import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pacer } from "../../../shared/event-loop.js";
import { manifestGeneration, manifestWritten } from "./manifest-generation.js";
import { SiteTables } from "./site-tables.js";
import {
  hashOf,
  manifestOf,
  rowsOfTable,
  testPlatform,
  type TestPlatform,
} from "../../../../test/support/test-platform.js";
import { fillHashes, revisionFiles } from "../../../../test/support/revision-files.js";

let t: TestPlatform;
let sites: SiteTables;
beforeEach(async () => {
  t = await testPlatform();
  sites = new SiteTables(t.database);
});
afterEach(() => t.remove());

async function session(id: string, project: string, files: Record<string, string>): Promise<void> {
  await t.sessions.open(
    { id, projectSlug: project, expiresAt: 1e12 },
    manifestOf(files),
    0,
    new Pacer(60_000),
  );
}
const publish = (revisionId: string, changes: { preview?: boolean; rules?: string; now?: number } = {}) =>
  sites.publish({
    projectSlug: "blue",
    revisionId,
    sessionId: "s1",
    hostnames: ["blue.test"],
    expiresAt: 5000,
    now: 10,
    ...changes,
  });
const column = async (table: string, name: string) => (await rowsOfTable(t, table)).map((row) => row[name]);

describe("SiteTables", () => {
  it("publish: the session's files and rules under the revision, production moved to it; a preview only moves the expiry; again, nothing doubled", async () => {
    await session("s1", "blue", { "a.html": "a", "b.css": "b" });
    await publish("r1", { rules: '{"redirects":[]}' });
    await publish("r2", { preview: true, now: 20 });
    await publish("r1", { rules: "{}", now: 30 });
    expect(await rowsOfTable(t, "sites")).toEqual([
      { project_slug: "blue", revision_id: "r1", expires_at: 5000, production_since: 30 },
    ]);
    // Each with the charge of its rows: 256 bytes and 4 per byte of "/a.html" and of "/b.css".
    const rowBytes = 256 + 4 * 7 + 256 + 4 * 6;
    const manifest_id = expect.any(String);
    expect(await rowsOfTable(t, "revisions")).toEqual([
      { project_slug: "blue", revision_id: "r1", created_at: 10, row_bytes: rowBytes, manifest_id },
      { project_slug: "blue", revision_id: "r2", created_at: 20, row_bytes: rowBytes, manifest_id },
    ]);
    expect(await revisionFiles(t.database.db)).toContainEqual({
      project_slug: "blue",
      revision_id: "r2",
      path: "/b.css",
      hash: hashOf("b"),
      content_type: "text/css; charset=utf-8",
      // The edge compresses it: its variants count in the quotas.
      compressible: 1,
    });
    expect((await revisionFiles(t.database.db)).map((row) => row.revision_id)).toEqual([
      "r1",
      "r1",
      "r2",
      "r2",
    ]);
    expect(await rowsOfTable(t, "revision_rules")).toEqual([
      { project_slug: "blue", revision_id: "r1", rules: '{"redirects":[]}' },
    ]);
  });

  it("publish: a manifest a crashed publish left half written (no file count, no revision) goes with the project's next publish", async () => {
    await sql`INSERT INTO manifests (project_slug, id, digest, base_id, file_count, created_at)
      VALUES ('blue', 'crashed', NULL, NULL, NULL, 1)`.execute(t.database.db);
    await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type)
      VALUES ('blue', 'crashed', '/a.html', ${hashOf("a")}, 'text/html')`.execute(t.database.db);
    await fillHashes(t.database.db, t.database.dialect);
    await session("s1", "blue", { "a.html": "a" });
    await publish("r1");
    expect(await column("manifests", "id")).not.toContain("crashed");
    expect(await column("manifest_files", "manifest_id")).not.toContain("crashed");
    expect(await column("manifest_hashes", "manifest_id")).not.toContain("crashed");
    expect(await revisionFiles(t.database.db)).toHaveLength(1);
  });

  it("publish: a first preview makes a site with no production revision, at its expiry", async () => {
    await session("s1", "blue", { "a.html": "a" });
    await publish("r1", { preview: true });
    expect(await rowsOfTable(t, "sites")).toEqual([
      { project_slug: "blue", revision_id: null, expires_at: 5000, production_since: null },
    ]);
    expect(await column("site_hosts", "hostname")).toEqual(["blue.test"]);
  });

  it("promote: true and production on the revision from `now`; false and nothing changed for a revision the project has not", async () => {
    await session("s1", "blue", { "a.html": "a" });
    await publish("r1");
    await publish("r2");
    expect(await sites.promote("blue", "r1", 77)).toBe(true);
    expect(await sites.promote("blue", "r3", 88)).toBe(false);
    expect(await sites.promote("green", "r2", 99)).toBe(false);
    expect(await rowsOfTable(t, "sites")).toEqual([
      expect.objectContaining({ revision_id: "r1", production_since: 77 }),
    ]);
  });

  it("prune: forgets the revisions named, their files and rules, never the production one nor another project's, nothing for a project without a site", async () => {
    await session("s1", "blue", { "a.html": "a" });
    for (const id of ["r1", "r2", "r3"]) await publish(id, { rules: "{}" });
    await sites.publish({
      projectSlug: "green",
      revisionId: "r1",
      sessionId: "s1",
      hostnames: [],
      expiresAt: 1,
      now: 1,
      rules: "{}",
    });
    await sites.prune("blue", ["r1", "r3", "r9"]);
    await sites.prune("never-published", ["r1"]);
    const pairs = async (table: string) =>
      (table === "files" ? await revisionFiles(t.database.db) : await rowsOfTable(t, table)).map(
        (row) => `${String(row["project_slug"])} ${String(row["revision_id"])}`,
      );
    for (const table of ["revisions", "files", "revision_rules"])
      expect(await pairs(table), table).toEqual(["blue r2", "blue r3", "green r1"]);
    // The manifests no revision names went: blue's one (shared by its revisions) and green's.
    expect(await column("manifests", "project_slug")).toEqual(["blue", "green"]);
  });

  it("update: sets the hostnames (the canonical URL on every other one, taken from another project if it held one) and the expiry, published or not", async () => {
    await sites.update("green", ["www.blue.example"], 1);
    await sites.update("blue", ["blue.test", "www.blue.example"], 9000, {
      hostname: "www.blue.example",
      url: "https://www.blue.example/",
    });
    await sites.update("blue", ["blue.test", "www.blue.example", "x.test"], 9500, {
      hostname: "www.blue.example",
      url: "https://www.blue.example/",
    });
    expect(await rowsOfTable(t, "sites")).toContainEqual({
      project_slug: "blue",
      revision_id: null,
      expires_at: 9500,
      production_since: null,
    });
    expect(await rowsOfTable(t, "site_hosts")).toEqual([
      { hostname: "blue.test", project_slug: "blue", canonical_url: "https://www.blue.example/" },
      { hostname: "www.blue.example", project_slug: "blue", canonical_url: null },
      { hostname: "x.test", project_slug: "blue", canonical_url: "https://www.blue.example/" },
    ]);
    await sites.update("blue", ["blue.test"], 9600);
    expect(await rowsOfTable(t, "site_hosts")).toEqual([
      { hostname: "blue.test", project_slug: "blue", canonical_url: null },
    ]);
  });

  it("remove, hashesOf: every hash the project's revisions and sessions name, each once; removed, nothing of the project is left and another's stays", async () => {
    await session("s1", "blue", { "a.html": "a", "b.html": "b" });
    await session("s2", "blue", { "c.html": "c", "a2.html": "a" });
    await session("g", "green", { "d.html": "d" });
    await t.sessions.record("s2", { alreadyHeld: [hashOf("c")], mediaTypes: [] }, 0);
    await t.sessions.record("g", { alreadyHeld: [hashOf("d")], mediaTypes: [] }, 0);
    await publish("r1", { rules: "{}" });
    await sites.publish({
      projectSlug: "green",
      revisionId: "r1",
      sessionId: "g",
      hostnames: ["g.test"],
      expiresAt: 1,
      now: 1,
      rules: "{}",
    });
    expect((await sites.hashesOf("blue")).sort()).toEqual(["a", "b", "c"].map(hashOf).sort());
    await sites.remove("blue");
    expect(await sites.hashesOf("blue")).toEqual([]);
    for (const table of [
      "sites",
      "site_hosts",
      "revisions",
      "manifests",
      "manifest_files",
      "revision_rules",
      "upload_sessions",
    ])
      expect(await column(table, "project_slug"), table).toEqual(["green"]);
    expect(await column("session_assets", "session_id")).toEqual(["g"]);
    expect(await column("session_blobs", "session_id")).toEqual(["g"]);
  });
});

describe("manifestGeneration", () => {
  it("manifestGeneration: one counter per database, moved by every insert, update and delete of a manifest table by any writer, not by blobs; manifestWritten leaves it to SQLite", async () => {
    const generation = manifestGeneration(t.database);
    expect(sites.generation).toBe(generation);
    let last = generation.value;
    const moved = () => {
      const now = generation.value;
      const did = now > last;
      last = now;
      return did;
    };
    for (const table of ["sites", "site_hosts", "revisions", "revision_rules"]) {
      const key = table === "sites" ? "project_slug" : table === "site_hosts" ? "hostname" : "revision_id";
      const columns =
        table === "site_hosts"
          ? "hostname, project_slug"
          : table === "sites"
            ? "project_slug, expires_at"
            : table === "revisions"
              ? "project_slug, revision_id, created_at"
              : "project_slug, revision_id, rules";
      const values = columns
        .split(", ")
        .map((_, i) => `'${i}'`)
        .join(", ");
      await sql.raw(`INSERT INTO ${table} (${columns}) VALUES (${values})`).execute(t.database.db);
      expect(moved(), `insert ${table}`).toBe(true);
      await sql.raw(`UPDATE ${table} SET ${key} = 'x'`).execute(t.database.db);
      expect(moved(), `update ${table}`).toBe(true);
      await sql.raw(`DELETE FROM ${table}`).execute(t.database.db);
      expect(moved(), `delete ${table}`).toBe(true);
    }
    await sql`INSERT INTO blobs (hash, size, created_at) VALUES ('h', 1, 1)`.execute(t.database.db);
    expect(moved()).toBe(false);
    manifestWritten(t.database);
    expect(moved()).toBe(false);
    expect(new SiteTables(t.database).generation).toBe(generation);
  });
});
