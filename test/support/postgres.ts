import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import type { PostgresOptions } from "../../src/shared/database/postgres.js";

/** The PostgreSQL the tests use: TEST_DATABASE_URL, else the one this project's machines run. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

// Schemas are named after this test process, so parallel test files never share one.
const RUN = `test_${process.pid}_${Date.now().toString(36)}`;
const created: string[] = [];
// Never reused, even after dropTestSchemas empties `created`: a worker runs many files in turn.
let named = 0;
let ready: Promise<boolean> | undefined;
const INSTALL = fileURLToPath(new URL("../../scripts/install-postgres.sh", import.meta.url));

async function answers(): Promise<Error | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return error as Error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs scripts/install-postgres.sh for the default server when we are root with apt-get. */
function install(): boolean {
  if (
    process.env.TEST_DATABASE_URL !== undefined ||
    process.getuid?.() !== 0 ||
    !existsSync("/usr/bin/apt-get")
  ) {
    return false;
  }
  console.warn("PostgreSQL tests: nothing answers; starting one with scripts/install-postgres.sh");
  return spawnSync("bash", [INSTALL], { stdio: "inherit", timeout: 600_000 }).status === 0;
}

/**
 * True when TEST_DATABASE_URL answers within 3 s (started now if it can be: root, apt-get and no
 * TEST_DATABASE_URL of one's own). Without it a PostgreSQL test is skipped with a
 * message, except under CI, where it must fail (describePostgres does both).
 */
export function postgresReady(): Promise<boolean> {
  ready ??= (async () => {
    let error = await answers();
    if (error && install()) error = await answers();
    if (error && !process.env.CI) {
      console.warn(
        `PostgreSQL tests skipped: nothing answers at ${TEST_DATABASE_URL} (${error.message}); ` +
          "start one with scripts/install-postgres.sh or set TEST_DATABASE_URL",
      );
    }
    return error === undefined;
  })();
  return ready;
}

/**
 * Connection options for a fresh schema of TEST_DATABASE_URL that no other test uses; the schema
 * is created on first connection and dropped after this file's tests (describePostgres).
 */
export function testPostgres(overrides: Partial<PostgresOptions> = {}): PostgresOptions & { schema: string } {
  const schema = `${RUN}_${named++}`;
  created.push(schema);
  return { url: TEST_DATABASE_URL, schema, connectTimeoutMs: 3_000, ...overrides };
}

/**
 * Drops every schema testPostgres() named in this process, and the platform schema a server made
 * beside each (those never created are skipped).
 */
export async function dropTestSchemas(): Promise<void> {
  const doomed = created.splice(0);
  if (doomed.length === 0 || !(await postgresReady())) return;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    // A whole server also makes its platform's schema beside the store's (`<schema>_platform`).
    for (const schema of doomed)
      await client.query(`DROP SCHEMA IF EXISTS ${schema}, ${schema}_platform CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A describe block of PostgreSQL tests: skipped with a message when no server answers, failing
 * under CI=true instead; the schemas its tests made are dropped after it.
 */
export async function describePostgres(name: string, body: () => void): Promise<void> {
  const present = await postgresReady();
  describe.skipIf(!present && !process.env.CI)(name, () => {
    beforeAll(() => {
      if (!present) throw new Error(`no PostgreSQL at ${TEST_DATABASE_URL}: run scripts/install-postgres.sh`);
    });
    afterAll(dropTestSchemas);
    body();
  });
}
