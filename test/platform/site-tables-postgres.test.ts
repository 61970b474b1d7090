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
});
