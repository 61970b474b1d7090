import { existsSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  migrateMetadataStore,
  openMetadataStore,
  platformPostgres,
  postgresOptions,
} from "../../src/server/metadata-store.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { tempDir } from "../support/server.js";

const URL = "postgres://postgres@db.internal/deploy";

/** Opens the metadata store of `settings` and closes it; PostgreSQL brings its locks and limiter. */
async function expectOpensAndCloses(settings: Parameters<typeof openMetadataStore>[0], shared: boolean) {
  const metadata = await openMetadataStore(settings);
  try {
    expect(metadata.locks !== undefined).toBe(shared);
    expect(metadata.sharedLimiter !== undefined).toBe(shared);
    await metadata.store.ping();
  } finally {
    await metadata.close();
  }
  await expect(metadata.store.ping()).rejects.toThrow();
}

describe("the metadata store's settings", () => {
  it("postgresOptions: none without DATABASE_URL; with it, its URL and DATABASE_SCHEMA when set", () => {
    expect(postgresOptions({ dataDir: "/d", databaseUrl: undefined, databaseSchema: "s" })).toBeUndefined();
    // No schema key at all without DATABASE_SCHEMA (toStrictEqual: not one set to undefined).
    expect(postgresOptions({ dataDir: "/d", databaseUrl: URL, databaseSchema: undefined })).toStrictEqual({
      url: URL,
    });
    expect(postgresOptions({ dataDir: "/d", databaseUrl: URL, databaseSchema: "tenant" })).toEqual({
      url: URL,
      schema: "tenant",
    });
  });

  it("platformPostgres: the platform's own schema beside the store's: platform, or <schema>_platform", () => {
    expect(platformPostgres({ dataDir: "/d", databaseUrl: undefined, databaseSchema: "s" })).toBeUndefined();
    expect(platformPostgres({ dataDir: "/d", databaseUrl: URL, databaseSchema: undefined })).toEqual({
      url: URL,
      schema: "platform",
    });
    expect(platformPostgres({ dataDir: "/d", databaseUrl: URL, databaseSchema: "tenant" })).toEqual({
      url: URL,
      schema: "tenant_platform",
    });
  });
});

describe("migrateMetadataStore on SQLite", () => {
  const dir = tempDir("deploy-migrate-");
  afterAll(() => dir.cleanup());

  it("migrateMetadataStore: without DATABASE_URL migrates DATA_DIR/metadata.sqlite, then finds nothing to do", async () => {
    const settings = { dataDir: dir.path, databaseUrl: undefined, databaseSchema: undefined };
    expect((await migrateMetadataStore(settings)).applied).not.toEqual([]);
    expect(existsSync(join(dir.path, "metadata.sqlite"))).toBe(true);
    expect((await migrateMetadataStore(settings)).applied).toEqual([]);
    await expectOpensAndCloses(settings, false);
  });
});

await describePostgres("migrateMetadataStore on PostgreSQL", () => {
  it("migrateMetadataStore: with DATABASE_URL migrates that database's schema, then finds nothing to do", async () => {
    const { url, schema } = testPostgres();
    const dir = tempDir("deploy-migrate-pg-");
    const settings = { dataDir: dir.path, databaseUrl: url, databaseSchema: schema };
    expect((await migrateMetadataStore(settings)).applied).not.toEqual([]);
    // The tables are in PostgreSQL, and no SQLite file was made.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'projects'",
        [schema],
      );
      expect(rows).toHaveLength(1);
    } finally {
      await client.end();
    }
    expect(existsSync(join(dir.path, "metadata.sqlite"))).toBe(false);
    dir.cleanup();
    expect((await migrateMetadataStore(settings)).applied).toEqual([]);
    await expectOpensAndCloses(settings, true);
  });
});
