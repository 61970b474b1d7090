import { type Kysely, sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { migrate, type Migrations } from "../../src/shared/database/migrator.js";
import { openPostgres } from "../../src/shared/database/postgres.js";
import { describePostgres, testPostgres } from "../support/postgres.js";

const opened: Kysely<unknown>[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});

async function open(schema: string, applicationName: string): Promise<Kysely<unknown>> {
  const db = await openPostgres<unknown>({ ...testPostgres(), schema, applicationName });
  opened.push(db);
  return db;
}

/** Two migrations that count their runs in `runs`; the first waits for `gate` before it ends. */
function countingMigrations(gate: Promise<void>, entered: () => void): Migrations {
  return {
    "0001_runs": {
      async up(db) {
        await db.schema.createTable("runs").addColumn("name", "text").execute();
        await sql`INSERT INTO runs VALUES ('0001_runs')`.execute(db);
        entered();
        await gate;
      },
    },
    "0002_more": {
      async up(db) {
        await sql`INSERT INTO runs VALUES ('0002_more')`.execute(db);
      },
    },
  };
}

/** True once the connection named `applicationName` waits for an advisory lock. */
async function waitsOnAdvisoryLock(db: Kysely<unknown>, applicationName: string): Promise<boolean> {
  const { rows } = await sql<{ waiting: number }>`
    SELECT count(*) AS waiting FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = ${applicationName}`.execute(db);
  return (rows[0]?.waiting ?? 0) > 0;
}

await describePostgres("migrations on PostgreSQL", () => {
  it("migrate: two processes starting at once apply each migration once; the later one waits, then has nothing to do", async () => {
    const { schema } = testPostgres();
    const tag = schema.slice(-12);
    const first = await open(schema, `first-${tag}`);
    const second = await open(schema, `second-${tag}`);
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => (letGo = resolve));
    let inside = () => {};
    const firstInside = new Promise<void>((resolve) => (inside = resolve));

    const firstRun = migrate(first, countingMigrations(gate, inside), { schema });
    await firstInside;
    // The first holds the lock inside its migration; the second starts now and must wait for it.
    const secondRun = migrate(
      second,
      countingMigrations(Promise.resolve(), () => {}),
      { schema },
    );
    await expect.poll(() => waitsOnAdvisoryLock(first, `second-${tag}`), { timeout: 10_000 }).toBe(true);
    letGo();

    const [a, b] = await Promise.all([firstRun, secondRun]);
    expect(a.applied).toEqual(["0001_runs", "0002_more"]);
    expect(b.applied).toEqual([]);
    const { rows } = await sql<{ name: string }>`SELECT name FROM runs ORDER BY name`.execute(first);
    expect(rows.map((r) => r.name)).toEqual(["0001_runs", "0002_more"]);
  });

  it("migrate: a failing migration leaves nothing of itself, and the next run applies it once fixed", async () => {
    const { schema } = testPostgres();
    const db = await open(schema, "failing-migration");
    const broken: Migrations = {
      "0001_half": {
        async up(trx) {
          await trx.schema.createTable("half").addColumn("id", "integer").execute();
          await sql`SELECT no_such_function()`.execute(trx);
        },
      },
    };
    await expect(migrate(db, broken, { schema })).rejects.toThrow(/no_such_function/);
    const { rows } = await sql<{ n: number }>`
      SELECT count(*) AS n FROM information_schema.tables
      WHERE table_schema = ${schema} AND table_name = 'half'`.execute(db);
    expect(rows[0]?.n).toBe(0);

    const fixed: Migrations = {
      "0001_half": {
        async up(trx) {
          await trx.schema.createTable("half").addColumn("id", "integer").execute();
        },
      },
    };
    expect((await migrate(db, fixed, { schema })).applied).toEqual(["0001_half"]);
    expect((await migrate(db, fixed, { schema })).applied).toEqual([]);
  });

  it("migrate: other schemas created and dropped meanwhile by another client never fail it (it reads only its own)", async () => {
    const churn = await open(testPostgres().schema, "schema-churn");
    const prefix = `${testPostgres().schema}_churn`;
    let stop = false;
    // Another client of the same database making and dropping schemas with tables, as parallel
    // test files (or another service) do: Kysely's own introspection read every schema's tables
    // and failed with 3F000 when one went away under it.
    const churning = (async () => {
      for (let i = 0; !stop; i++) {
        const name = `${prefix}_${i % 4}`;
        await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${name}`).execute(churn);
        await sql.raw(`CREATE TABLE IF NOT EXISTS ${name}.t (id serial, v text)`).execute(churn);
        await sql.raw(`DROP SCHEMA ${name} CASCADE`).execute(churn);
      }
    })();
    try {
      for (let run = 0; run < 30; run++) {
        const { schema } = testPostgres();
        const db = await open(schema, `migrating-${run}`);
        const report = await migrate(
          db,
          { "0001_t": { up: (d) => d.schema.createTable("t").addColumn("v", "text").execute() } },
          { schema },
        );
        expect(report.applied).toEqual(["0001_t"]);
      }
    } finally {
      stop = true;
      await churning;
    }
  });
});
