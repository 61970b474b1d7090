import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  PostgresDialect,
  type PostgresDialectConfig,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from "kysely";

/**
 * Kysely's PostgreSQL dialect, its introspection (what the migrator asks before it creates its
 * tables) limited to one schema. Kysely's own reads the columns of every table of every schema of
 * the database, calling functions on each schema's name, and failed with "schema ... does not
 * exist" (3F000) whenever another schema was dropped meanwhile: another service sharing the
 * database, or parallel test files dropping theirs.
 */
export class SchemaScopedPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly schema: string,
  ) {
    super(config);
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SchemaScopedIntrospector(db, this.schema);
  }
}

/** The schema itself and its tables and views, names only (all the migrator reads). */
class SchemaScopedIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<unknown>,
    private readonly schema: string,
  ) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`SELECT nspname AS name FROM pg_catalog.pg_namespace
      WHERE nspname = ${this.schema}`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; kind: string }>`SELECT c.relname AS name, c.relkind AS kind
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace ns ON ns.oid = c.relnamespace
      WHERE ns.nspname = ${this.schema} AND c.relkind IN ('r', 'v', 'p') ORDER BY c.relname`.execute(this.db);
    return rows.map((row) => ({
      name: row.name,
      isView: row.kind === "v",
      columns: [],
      schema: this.schema,
    }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}
