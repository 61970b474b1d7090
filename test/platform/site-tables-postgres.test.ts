import { expect, it } from "vitest";
import { SiteTables } from "../../src/platform/selfhost/sites/site-tables.js";
import { postgresPlatformDatabases } from "../support/platform-database.js";
import { describePostgres } from "../support/postgres.js";

const openDatabase = postgresPlatformDatabases("site-tables-pg-");

await describePostgres("SiteTables on PostgreSQL", () => {
  it("generation: moved once listening, then by each write of the manifest by this process moves it once, a failed one too (its writers tell, the engine cannot)", async () => {
    const database = await openDatabase();
    const sites = new SiteTables(database);
    await database.manifestHeard();
    const start = sites.generation.value;
    // Once listening, told once of what it may have missed (other processes' writes).
    expect(start).toBe(1);
    await sites.update("blue", ["blue.test"], 1000);
    expect(sites.generation.value).toBe(start + 1);
    expect(await sites.promote("blue", "r1", 5)).toBe(false);
    expect(sites.generation.value).toBe(start + 2);
    await expect(sites.update("blue", [null as unknown as string], 1000)).rejects.toThrow();
    expect(sites.generation.value).toBe(start + 3);
    await sites.prune("blue", ["r1"]);
    await sites.remove("blue");
    expect(sites.generation.value).toBe(start + 5);
    expect(await sites.hashesOf("blue")).toEqual([]);
  });
});
