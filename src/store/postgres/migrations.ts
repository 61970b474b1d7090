import { type Kysely, sql } from "kysely";
import type { Migrations } from "../../shared/database/migrator.js";

/**
 * Migrations of the metadata store on PostgreSQL, in order. The tables are those of SQLite's
 * migrations 0001-0005 as they stand (src/store/sql/schema.ts), plus held_hostnames. Timestamps are
 * ISO 8601 text compared byte by byte (COLLATE "C"), as SQLite compares them. Never edit one that
 * has shipped; add the next.
 */
export const POSTGRES_MIGRATIONS: Migrations = {
  "0001_initial": {
    async up(db: Kysely<unknown>) {
      for (const statement of INITIAL) await statement.execute(db);
    },
  },
  "0002_rate_limits": {
    async up(db: Kysely<unknown>) {
      // One fixed window per limit and key (src/store/postgres/postgres-rate-limiter.ts), shared
      // by every API process; window_start is milliseconds since the epoch, by the server's clock.
      await sql`CREATE TABLE rate_limit_windows (
        scope text NOT NULL,
        key text NOT NULL,
        window_start bigint NOT NULL,
        count integer NOT NULL,
        PRIMARY KEY (scope, key))`.execute(db);
    },
  },
  "0003_revision_message": {
    async up(db: Kysely<unknown>) {
      // What the deploy said of itself (`deploy --message`), shown by list and status.
      await sql`ALTER TABLE revisions ADD COLUMN message text`.execute(db);
    },
  },
  "0004_project_creator": {
    async up(db: Kysely<unknown>) {
      // As SQLite's 0007: the client address that created a project (CLIENT_QUOTA_BYTES).
      await sql`ALTER TABLE projects ADD COLUMN created_by text`.execute(db);
    },
  },
  "0005_domain_contested": {
    async up(db: Kysely<unknown>) {
      // As SQLite's 0008: when another project first asked for a name a pending claim holds.
      await sql`ALTER TABLE projects ADD COLUMN domain_contested_at text COLLATE "C"`.execute(db);
    },
  },
  "0006_rate_limit_bounds": {
    async up(db: Kysely<unknown>) {
      // Issue 31: windows that ended are found oldest first by index, a few a hit, instead of a
      // scan of the whole scope every 1,000 hits; and each scope's keys are counted (the overflow
      // window, key '', apart) so a hit can tell in one row read whether RATE_LIMIT_KEYS is reached.
      for (const statement of RATE_LIMIT_BOUNDS) await statement.execute(db);
    },
  },
  "0007_turns": {
    async up(db: Kysely<unknown>) {
      // Issue 32: work that one process of many does per interval (the sweep) goes by turns, each
      // a lease held by one process until expires_at (milliseconds since the epoch, by the
      // claimant's clock); the next claim after it takes the turn (PostgresLocks.claimTurn).
      await sql`CREATE TABLE turns (
        name text PRIMARY KEY,
        holder text NOT NULL,
        expires_at bigint NOT NULL)`.execute(db);
    },
  },
};

const RATE_LIMIT_BOUNDS = [
  sql`CREATE INDEX rate_limit_windows_started ON rate_limit_windows (scope, window_start)`,
  sql`CREATE TABLE rate_limit_keys (scope text PRIMARY KEY, keys integer NOT NULL)`,
  sql`INSERT INTO rate_limit_keys (scope, keys)
    SELECT scope, count(*) FROM rate_limit_windows WHERE key <> '' GROUP BY scope`,
  // Once per statement, from its transition table: a bulk change updates the count once.
  sql`CREATE FUNCTION count_rate_limit_keys_added() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO rate_limit_keys AS k (scope, keys)
        SELECT scope, count(*) FROM added WHERE key <> '' GROUP BY scope
        ON CONFLICT (scope) DO UPDATE SET keys = k.keys + EXCLUDED.keys;
      RETURN NULL;
    END $$`,
  sql`CREATE FUNCTION count_rate_limit_keys_removed() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
      UPDATE rate_limit_keys AS k SET keys = k.keys - gone.keys
        FROM (SELECT scope, count(*) AS keys FROM removed WHERE key <> '' GROUP BY scope) AS gone
        WHERE k.scope = gone.scope;
      RETURN NULL;
    END $$`,
  sql`CREATE TRIGGER rate_limit_windows_added AFTER INSERT ON rate_limit_windows
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION count_rate_limit_keys_added()`,
  sql`CREATE TRIGGER rate_limit_windows_removed AFTER DELETE ON rate_limit_windows
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION count_rate_limit_keys_removed()`,
];

const INITIAL = [
  sql`CREATE TABLE projects (
    slug text PRIMARY KEY,
    project_hash text NOT NULL,
    anon_fingerprint text NOT NULL,
    token_hash text NOT NULL UNIQUE,
    generated_hostname text NOT NULL UNIQUE,
    custom_hostname text UNIQUE,
    domain_status text,
    domain_claimed_at text COLLATE "C",
    domain_checked_at text COLLATE "C",
    domain_message text,
    revision_id text,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL)`,
  sql`CREATE INDEX projects_expires_at ON projects (expires_at)`,
  sql`CREATE INDEX projects_pending_domains ON projects (domain_status, domain_checked_at)`,
  sql`CREATE TABLE deploys (
    deploy_id text PRIMARY KEY,
    project_slug text NOT NULL REFERENCES projects (slug) ON DELETE CASCADE,
    revision_id text NOT NULL,
    session_id text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    expires_at text COLLATE "C" NOT NULL,
    completed_at text COLLATE "C",
    completion_hash text,
    file_count integer NOT NULL DEFAULT 0,
    byte_count bigint NOT NULL DEFAULT 0,
    manifest_digest text,
    CONSTRAINT deploys_project_revision UNIQUE (project_slug, revision_id))`,
  sql`CREATE INDEX deploys_expires_at ON deploys (expires_at) WHERE completed_at IS NULL`,
  sql`CREATE TABLE revisions (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    project_slug text NOT NULL REFERENCES projects (slug) ON DELETE CASCADE,
    revision_id text NOT NULL,
    deploy_id text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    file_count integer NOT NULL DEFAULT 0,
    byte_count bigint NOT NULL DEFAULT 0,
    preview integer NOT NULL DEFAULT 0,
    manifest_digest text,
    CONSTRAINT revisions_project_revision UNIQUE (project_slug, revision_id))`,
  sql`CREATE INDEX revisions_project_created ON revisions (project_slug, created_at)`,
  // No foreign key: the record outlives the project that released the name.
  sql`CREATE TABLE hostname_releases (
    hostname text PRIMARY KEY,
    project_slug text NOT NULL,
    released_at text COLLATE "C" NOT NULL,
    withheld_until text COLLATE "C")`,
  // Every hostname a project holds, generated or custom, once: the primary key is what keeps one
  // name from two projects, whichever column each holds it in and however many processes write.
  sql`CREATE TABLE held_hostnames (
    hostname text PRIMARY KEY,
    project_slug text NOT NULL REFERENCES projects (slug) ON DELETE CASCADE)`,
  sql`CREATE FUNCTION hold_project_hostnames() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO held_hostnames (hostname, project_slug) VALUES (NEW.generated_hostname, NEW.slug);
      ELSIF OLD.custom_hostname IS NOT NULL AND OLD.custom_hostname <> OLD.generated_hostname THEN
        DELETE FROM held_hostnames WHERE hostname = OLD.custom_hostname AND project_slug = OLD.slug;
      END IF;
      IF NEW.custom_hostname IS NOT NULL AND NEW.custom_hostname <> NEW.generated_hostname THEN
        INSERT INTO held_hostnames (hostname, project_slug) VALUES (NEW.custom_hostname, NEW.slug);
      END IF;
      RETURN NULL;
    END $$`,
  sql`CREATE TRIGGER projects_hold_hostnames AFTER INSERT OR UPDATE OF custom_hostname ON projects
    FOR EACH ROW EXECUTE FUNCTION hold_project_hostnames()`,
];
