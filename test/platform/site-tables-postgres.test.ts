import { sql } from "kysely";
import { expect, it } from "vitest";
import { SiteTables } from "../../src/platform/selfhost/sites/site-tables.js";
import { postgresPlatformDatabases } from "../support/platform-database.js";
import { describePostgres } from "../support/postgres.js";

const openDatabase = postgresPlatformDatabases("site-tables-pg-");

await describePostgres("SiteTables on PostgreSQL", () => {
  it("generation: moved once listening, for every project; then each write by this process moves its project at once, a failed one too (its writers tell, the engine cannot), and no other", async () => {
    const database = await openDatabase();
    const sites = new SiteTables(database);
    const generation = sites.generation;
    await database.manifestHeard();
    // Once listening, told once of what it may have missed (other processes' writes).
    expect(generation.value).toBe(1);
    expect(generation.everything).toBe(1);
    const movesBlue = async (write: () => Promise<unknown>) => {
      const before = generation.value;
      await write().catch(() => undefined);
      expect(generation.changedAt("blue")).toBeGreaterThan(before);
      expect(generation.changedAt("other-k1")).toBe(1);
    };
    await movesBlue(() => sites.update("blue", ["blue.test"], 1000));
    await movesBlue(() => sites.promote("blue", "r1", 5));
    await movesBlue(() => sites.update("blue", [null as unknown as string], 1000));
    await movesBlue(() => sites.prune("blue", ["r1"]));
    await movesBlue(() => sites.remove("blue"));
    // Its own notifications name the project too: nothing was of unknown extent.
    expect(generation.everything).toBe(1);
    expect(await sites.hashesOf("blue")).toEqual([]);
  });

  it("update: the hosts as given, canonical named by the others, one another project held moved here; the same again rewrites no row", async () => {
    const database = await openDatabase();
    const sites = new SiteTables(database);
    const hosts = async () =>
      (
        await sql<{ hostname: string; project_slug: string; canonical_url: string | null; version: string }>`
          SELECT hostname, project_slug, canonical_url, CAST(xmin AS TEXT) AS version FROM site_hosts
          ORDER BY hostname`.execute(database.db)
      ).rows;
    await sites.update("green", ["shared.test"], 1000);
    await sites.update("blue", ["blue.test", "old.test"], 1000);
    const canonical = { hostname: "www.blue.test", url: "https://www.blue.test" };
    const names = ["blue.test", "shared.test", "www.blue.test", "blue.test"];
    await sites.update("blue", names, 1000, canonical);
    const written = await hosts();
    expect(written.map(({ version: _, ...row }) => row)).toEqual([
      { hostname: "blue.test", project_slug: "blue", canonical_url: "https://www.blue.test" },
      { hostname: "shared.test", project_slug: "blue", canonical_url: "https://www.blue.test" },
      { hostname: "www.blue.test", project_slug: "blue", canonical_url: null },
    ]);
    await sites.update("blue", names, 2000, canonical);
    expect(await hosts()).toEqual(written);
  });
});
