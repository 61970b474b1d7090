import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlatformDatabase } from "../state/platform-db.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { keptCharge } from "./kept-charge.js";
import { VARIANT_FACTOR } from "./quota-charges.js";
import { countingStatements, keepContent } from "../../../../test/support/kept-content.js";

let dir: string;
let database: PlatformDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "kept-charge-"));
  database = await openPlatformDatabase(dir);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** keptCharge of `project` and the statements it took. */
async function charged(
  project: string,
  oneRangeRows?: number,
): Promise<{ bytes: number; statements: number }> {
  const counted = countingStatements(database.db);
  const bytes = await keptCharge(counted.db, "sqlite", project, 150, undefined, oneRangeRows);
  return { bytes, statements: counted.statements() };
}

describe("keptCharge", () => {
  it("keptCharge: a project under oneRangeRows rows is summed in one statement, a larger one a range of hashes a statement, to the same charge", async () => {
    const { content, variants } = await keepContent(database.db, "p", 200);
    const expected = content + VARIANT_FACTOR * variants;
    const small = await charged("p", 201);
    const large = await charged("p", 200);
    expect(small).toEqual({ bytes: expected, statements: 2 });
    expect(large).toEqual({ bytes: expected, statements: 65 });
  });

  it("keptCharge: counts only the project's own rows toward the bound", async () => {
    await keepContent(database.db, "big", 300);
    await keepContent(database.db, "small", 5, 1_000);
    expect((await charged("small", 10)).statements).toBe(2);
  });
});
