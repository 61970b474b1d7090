import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { CheckedManifest, compactManifest, type PathOrder } from "../../src/core/checked-manifest.js";
import { Pacer } from "../../src/shared/event-loop.js";
import { type PlatformDatabase, rowsOf } from "../../src/platform/selfhost/state/platform-db.js";
import { openPlatformDatabase } from "../../src/platform/selfhost/state/sqlite-database.js";
import {
  POSTGRES_ROWS_PER_SLICE,
  ROWS_PER_SLICE,
} from "../../src/platform/selfhost/sessions/session-rows.js";
import { UploadSessions } from "../../src/platform/selfhost/sessions/upload-sessions.js";
import { postgresPlatformDatabases } from "../support/platform-database.js";
import { describePostgres } from "../support/postgres.js";

// A session opened with its manifest as the prepare's body worker packs it: the rows in path
// order read from the worker's strings (PathOrder) rather than off the entries by their places.

const limits = { maxAssets: 100_000, maxAssetBytes: 1_000_000, maxManifestBytes: 10_000_000 };
const pause = { due: () => false, next: () => Promise.resolve() };

/** `count` entries as a worker checks and packs them: paths of mixed scripts, one hash every fifth. */
async function packed(count: number) {
  const manifest: Record<string, { hash: string; size: number }> = {};
  for (let i = count; i > 0; i--) {
    const hash = (i % 5 === 0 ? 5 : i).toString(16).padStart(32, "0");
    manifest[`/site/${i % 7 === 0 ? "é" : "d"}${i % 13}/f${i}.${i % 3 === 0 ? "png" : "js"}`] = {
      hash: [...hash].reverse().join(""),
      size: i,
    };
  }
  return new CheckedManifest(compactManifest(manifest, "site", limits)).open(pause);
}

/** Opens sessions of one manifest with its packing, without, and with a packing that does not fit. */
function pathOrderCases(open: () => Promise<PlatformDatabase>, count: number) {
  it("open: given the manifest's path order as a worker packs it, writes the rows its entries alone give, slice after slice; a packing that does not fit (a path too few) is not read", async () => {
    const database = await open();
    const sessions = new UploadSessions(database);
    const { entries, byPath } = await packed(count);
    const session = (id: string) => ({ id, projectSlug: "blue", expiresAt: 1000 });
    const joined: PathOrder = { ...byPath, paths: byPath.paths.replace("\0", "") };
    await sessions.open(session("packed"), entries, 0, new Pacer(), byPath);
    await sessions.open(session("alone"), entries, 0, new Pacer());
    await sessions.open(session("unfit"), entries, 0, new Pacer(), joined);
    const rows = (id: string) =>
      rowsOf(
        database.db,
        sql`SELECT path, hash, size, content_type, compressible FROM session_assets
          WHERE session_id = ${id} ORDER BY path`,
      );
    const alone = await rows("alone");
    expect(alone).toHaveLength(count);
    expect(await rows("packed")).toEqual(alone);
    expect(await rows("unfit")).toEqual(alone);
  });
}

describe("session rows in path order, SQLite", () => {
  const dirs: string[] = [];
  const databases: PlatformDatabase[] = [];
  afterEach(async () => {
    for (const database of databases.splice(0)) await database.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  pathOrderCases(
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "session-path-order-"));
      dirs.push(dir);
      const database = await openPlatformDatabase(dir);
      databases.push(database);
      return database;
    },
    ROWS_PER_SLICE * 5 + 7,
  );
});

const openPostgres = postgresPlatformDatabases("session-path-order-pg-");
await describePostgres("session rows in path order, PostgreSQL", () => {
  pathOrderCases(openPostgres, POSTGRES_ROWS_PER_SLICE * 2 + 7);
});
