import { type Kysely, sql } from "kysely";
import type { Migrations } from "../../shared/database/migrator.js";

/** Migrations of the metadata store, in order. Never edit one that has shipped; add the next. */
export const SQLITE_MIGRATIONS: Migrations = {
  "0001_initial": {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable("projects")
        .addColumn("slug", "text", (c) => c.primaryKey())
        .addColumn("project_hash", "text", (c) => c.notNull())
        .addColumn("anon_fingerprint", "text", (c) => c.notNull())
        .addColumn("token_hash", "text", (c) => c.notNull().unique())
        .addColumn("generated_hostname", "text", (c) => c.notNull().unique())
        .addColumn("custom_hostname", "text", (c) => c.unique())
        .addColumn("revision_id", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("projects_expires_at").on("projects").column("expires_at").execute();
      await db.schema
        .createTable("deploys")
        .addColumn("deploy_id", "text", (c) => c.primaryKey())
        .addColumn("project_slug", "text", (c) => c.notNull().references("projects.slug").onDelete("cascade"))
        .addColumn("revision_id", "text", (c) => c.notNull())
        .addColumn("session_id", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addColumn("completed_at", "text")
        .addColumn("completion_hash", "text")
        .addUniqueConstraint("deploys_project_revision", ["project_slug", "revision_id"])
        .execute();
      await db.schema.createIndex("deploys_expires_at").on("deploys").column("expires_at").execute();
      await db.schema
        .createTable("revisions")
        .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
        .addColumn("project_slug", "text", (c) => c.notNull().references("projects.slug").onDelete("cascade"))
        .addColumn("revision_id", "text", (c) => c.notNull())
        .addColumn("deploy_id", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addUniqueConstraint("revisions_project_revision", ["project_slug", "revision_id"])
        .execute();
    },
  },
  "0002_hostname_releases": {
    async up(db: Kysely<unknown>) {
      // Hostnames given up by a project: withheld from others for ever (withheld_until NULL) or
      // until a time. No foreign key: the record outlives the project that released the name.
      await db.schema
        .createTable("hostname_releases")
        .addColumn("hostname", "text", (c) => c.primaryKey())
        .addColumn("project_slug", "text", (c) => c.notNull())
        .addColumn("released_at", "text", (c) => c.notNull())
        .addColumn("withheld_until", "text")
        .execute();
    },
  },
  "0003_revision_details": {
    async up(db: Kysely<unknown>) {
      // What a revision holds (from its manifest) and whether it was completed as a preview, for
      // the project's state; existing rows get zeros, as nothing recorded them.
      await db.schema
        .alterTable("deploys")
        .addColumn("file_count", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("deploys")
        .addColumn("byte_count", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("revisions")
        .addColumn("file_count", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("revisions")
        .addColumn("byte_count", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable("revisions")
        .addColumn("preview", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      // Retention reads a project's revisions newest first.
      await db.schema
        .createIndex("revisions_project_created")
        .on("revisions")
        .columns(["project_slug", "created_at"])
        .execute();
    },
  },
  "0004_domain_proof": {
    async up(db: Kysely<unknown>) {
      // Whether DNS has shown control of the custom hostname. Names held before proof existed
      // were taken under the rules of their time: they stay, as active.
      for (const column of ["domain_status", "domain_claimed_at", "domain_checked_at", "domain_message"]) {
        await db.schema.alterTable("projects").addColumn(column, "text").execute();
      }
      await sql`UPDATE projects SET domain_status = 'active', domain_claimed_at = created_at
                WHERE custom_hostname IS NOT NULL`.execute(db);
      await db.schema
        .createIndex("projects_pending_domains")
        .on("projects")
        .columns(["domain_status", "domain_checked_at"])
        .execute();
    },
  },
  "0005_manifest_digest": {
    async up(db: Kysely<unknown>) {
      // What a deploy's manifest held, as one digest, so that prepare can tell a manifest the
      // production revision already serves; revisions from before have none (never "unchanged").
      await db.schema.alterTable("deploys").addColumn("manifest_digest", "text").execute();
      await db.schema.alterTable("revisions").addColumn("manifest_digest", "text").execute();
    },
  },
  "0006_revision_message": {
    async up(db: Kysely<unknown>) {
      // What the deploy said of itself (`deploy --message`), shown by list and status.
      await db.schema.alterTable("revisions").addColumn("message", "text").execute();
    },
  },
  "0007_project_creator": {
    async up(db: Kysely<unknown>) {
      // The client address that created a project (CLIENT_QUOTA_BYTES counts a client's storage
      // over the projects it created); projects from before have none and count for nobody.
      await db.schema.alterTable("projects").addColumn("created_by", "text").execute();
    },
  },
  "0008_domain_contested": {
    async up(db: Kysely<unknown>) {
      // When another project first asked for a name this project's pending claim holds: from then
      // on only the TXT record proves the claim (contract §8). NULL: uncontested, as every claim
      // made before this column was.
      await db.schema.alterTable("projects").addColumn("domain_contested_at", "text").execute();
    },
  },
};
