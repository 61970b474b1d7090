import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openPlatformDatabase, type PlatformDatabase } from "../../src/platform/local/database.js";
import { SiteTables } from "../../src/platform/local/site-tables.js";
import { describePostgres, testPostgres } from "../support/postgres.js";

let dir: string | undefined;
let database: PlatformDatabase | undefined;
afterEach(async () => {
  await database?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  [dir, database] = [undefined, undefined];
});

await describePostgres("SiteTables on PostgreSQL", () => {
  it("generation: moved once listening, then by each write of the manifest by this process moves it once, a failed one too (its writers tell, the engine cannot)", async () => {
    dir = mkdtempSync(join(tmpdir(), "site-tables-pg-"));
    database = await openPlatformDatabase(dir, testPostgres());
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
