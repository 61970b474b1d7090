import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QuotaExceededError } from "../../../core/errors.js";
import type { PlatformDatabase } from "../state/platform-db.js";
import { openPlatformDatabase } from "../state/sqlite-database.js";
import { keptCharge, ONE_RANGE_ROWS } from "./kept-charge.js";
import { chargeRowOf, recordCharge } from "./project-charges.js";
import { QuotaGate } from "./quota-gate.js";
import { sql } from "kysely";
import { countingStatements, keepContent } from "../../../../test/support/kept-content.js";
import { fillHashes } from "../../../../test/support/revision-files.js";

let dir: string;
let database: PlatformDatabase;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "quota-gate-"));
  database = await openPlatformDatabase(dir);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A gate with a project quota of `quota` bytes, and nothing else limited. */
function gateOf(quota: number): QuotaGate {
  const limits = {
    projectQuotaBytes: quota,
    pendingQuotaBytes: 0,
    minFreeBytes: 0,
    freeBytes: async () => 1e15,
  };
  return new QuotaGate(database, limits, () => 0);
}

/** `admit` of `added` bytes to project "p" through a counting executor: its outcome and statements. */
async function admitted(gate: QuotaGate, added: number): Promise<{ refused: boolean; statements: number }> {
  const counted = countingStatements(database.db);
  const refused = await gate.admit(counted.db, "p", undefined, added).then(
    () => false,
    (error: unknown) => {
      if (error instanceof QuotaExceededError) return true;
      throw error;
    },
  );
  return { refused, statements: counted.statements() };
}

describe("QuotaGate", () => {
  it("admit: judges a project with a recorded charge by it, in one statement, without summing its content", async () => {
    await keepContent(database.db, "p", ONE_RANGE_ROWS + 10);
    const kept = await keptCharge(database.db, "sqlite", "p", 0);
    await recordCharge(database.db, "p", kept);
    expect(await admitted(gateOf(kept + 1_000), 1_000)).toEqual({ refused: false, statements: 1 });
  });

  it("admit: a refusal on a stale recorded charge is judged again on the charge summed now", async () => {
    await keepContent(database.db, "p", ONE_RANGE_ROWS + 10);
    const kept = await keptCharge(database.db, "sqlite", "p", 0);
    // Recorded before revisions went: higher than what the project keeps now.
    await recordCharge(database.db, "p", kept * 2);
    const fits = await admitted(gateOf(kept + 1_000), 1_000);
    expect(fits.refused).toBe(false);
    expect(fits.statements).toBeGreaterThan(60);
    expect((await admitted(gateOf(kept + 1_000), 1_001)).refused).toBe(true);
  });

  it("admit: a project without a recorded charge is judged on the charge summed now", async () => {
    await keepContent(database.db, "p", 50);
    const kept = await keptCharge(database.db, "sqlite", "p", 0);
    expect((await admitted(gateOf(kept + 1_000), 1_000)).refused).toBe(false);
    expect((await admitted(gateOf(kept + 1_000), 1_001)).refused).toBe(true);
  });

  it("published: adds a small publish's charge to an exact recorded one in three statements, without summing the project's content, to the full sum", async () => {
    const db = database.db;
    await keepContent(db, "p", ONE_RANGE_ROWS + 10);
    await recordCharge(db, "p", await keptCharge(db, "sqlite", "p", 0));
    // The revision the publish added: a manifest of two rows, one of content kept already.
    const kept = await sql<{ hash: string }>`SELECT hash FROM manifest_files LIMIT 1`.execute(db);
    const fresh = "ab".repeat(16);
    await sql`INSERT INTO blobs (hash, size, created_at, pack, pack_offset) VALUES (${fresh}, 5000, 0, NULL, NULL)`.execute(
      db,
    );
    for (const [path, hash] of [
      ["/new", fresh],
      ["/old", kept.rows[0]!.hash],
    ]) {
      await sql`INSERT INTO manifest_files (project_slug, manifest_id, path, hash, content_type, compressible, removed)
        VALUES ('p', 'n', ${path}, ${hash}, 'text/plain', 1, 0)`.execute(db);
    }
    await fillHashes(db, "sqlite");
    await sql`INSERT INTO revisions (project_slug, revision_id, created_at, row_bytes, manifest_id)
      VALUES ('p', 'r', 0, 600, 'n')`.execute(db);
    const counted = countingStatements(db);
    await gateOf(0).published(counted.db, "p", { revisionId: "r", manifest: { id: "n", rows: 2 } });
    expect(counted.statements()).toBe(3);
    expect((await chargeRowOf(db, "p"))?.chargedBytes).toBe(await keptCharge(db, "sqlite", "p", 0));
  });
});
