import { type Kysely, sql, type Transaction } from "kysely";
import {
  type CompleteDeployInput,
  type DeployRecord,
  type DomainState,
  type DomainStatus,
  HostnameConflictError,
  type HostnameRelease,
  HostnameWithheldError,
  isWithheld,
  type ProjectRecord,
  type RetentionPolicy,
  type RevisionRecord,
  type Store,
} from "../../core/ports/index.js";
import {
  toDeploy,
  toDeployRow,
  toDomainRow,
  toProject,
  toProjectRow,
  toRelease,
  toReleaseRow,
  toRevision,
} from "./rows.js";
import type { MetadataTables } from "./schema.js";

/** What differs between the databases the store runs on. */
export interface SqlDialect {
  /**
   * Makes the rest of the transaction the only one working on these hostnames (their holders and
   * releases): PostgreSQL takes advisory transaction locks; SQLite has one writer at a time
   * already.
   */
  lockHostnames(trx: Transaction<MetadataTables>, hostnames: Array<string | null | undefined>): Promise<void>;
  /** True when `error` is a unique constraint refusing a row. */
  isUniqueViolation(error: unknown): boolean;
}

/** The metadata store on an SQL database through Kysely: SQLite or PostgreSQL, by `dialect`. */
export class SqlStore implements Store {
  constructor(
    private readonly db: Kysely<MetadataTables>,
    private readonly dialect: SqlDialect,
  ) {}

  async createProject(project: ProjectRecord): Promise<boolean> {
    return this.db
      .transaction()
      .execute(async (trx) => {
        await this.dialect.lockHostnames(trx, [project.generatedHostname]);
        // A generated hostname once released is never given again, not even to the same slug: a
        // new project under a deleted project's slug is another project.
        const release = await releaseOf(trx, project.generatedHostname);
        if (release && isWithheld(release, "", project.createdAt)) return false;
        // A name is as taken as a custom hostname as a generated one (PostgreSQL's held_hostnames
        // says so by constraint too).
        const holder = await trx
          .selectFrom("projects")
          .select("slug")
          .where("custom_hostname", "=", project.generatedHostname)
          .executeTakeFirst();
        if (holder) return false;
        const result = await trx
          .insertInto("projects")
          .values(toProjectRow(project))
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
      })
      .catch((error: unknown) => {
        // Its generated hostname is another project's custom one (PostgreSQL's held_hostnames).
        if (this.dialect.isUniqueViolation(error)) return false;
        throw error;
      });
  }

  async getProject(slug: string): Promise<ProjectRecord | undefined> {
    const row = await this.db.selectFrom("projects").selectAll().where("slug", "=", slug).executeTakeFirst();
    return row && toProject(row);
  }

  async getProjectByTokenHash(tokenHash: string): Promise<ProjectRecord | undefined> {
    const row = await this.db
      .selectFrom("projects")
      .selectAll()
      .where("token_hash", "=", tokenHash)
      .executeTakeFirst();
    return row && toProject(row);
  }

  async getProjectByHostname(hostname: string): Promise<ProjectRecord | undefined> {
    const row = await this.db
      .selectFrom("projects")
      .selectAll()
      .where((eb) => eb.or([eb("generated_hostname", "=", hostname), eb("custom_hostname", "=", hostname)]))
      .executeTakeFirst();
    return row && toProject(row);
  }

  async setCustomHostname(
    slug: string,
    hostname: string | null,
    change: { now?: string; release?: HostnameRelease; domain?: DomainState; takeOver?: boolean } = {},
  ): Promise<{ takenFrom?: string }> {
    const now = change.now ?? new Date().toISOString();
    const domain: DomainState | null =
      hostname === null
        ? null
        : (change.domain ?? { status: "active", claimedAt: now, checkedAt: null, message: null });
    try {
      return await this.db.transaction().execute(async (trx) => {
        let takenFrom: string | undefined;
        await this.dialect.lockHostnames(trx, [hostname, change.release?.hostname]);
        // A name is held as a custom hostname (the unique index says so) or as a generated one.
        if (hostname !== null) {
          const holder = await trx
            .selectFrom("projects")
            .select("slug")
            .where("generated_hostname", "=", hostname)
            .where("slug", "!=", slug)
            .executeTakeFirst();
          if (holder) throw new HostnameConflictError(hostname);
          // Judged here, in the transaction that takes the name: a release that happened since
          // the caller looked is seen. Proof by DNS outweighs a quarantine, never a tombstone.
          const release = await releaseOf(trx, hostname);
          if (release && isWithheld(release, slug, now)) {
            if (!change.takeOver || release.withheldUntil === null) throw new HostnameWithheldError(release);
          }
          await trx
            .deleteFrom("hostname_releases")
            .where("hostname", "=", hostname)
            .where(change.takeOver ? sql<boolean>`1 = 1` : sql<boolean>`project_slug = ${slug}`)
            .execute();
          if (change.takeOver) {
            const taken = await trx
              .updateTable("projects")
              .set({ custom_hostname: null, ...toDomainRow(null) })
              .where("custom_hostname", "=", hostname)
              .where("slug", "!=", slug)
              .returning("slug")
              .executeTakeFirst();
            takenFrom = taken?.slug;
          }
        }
        await trx
          .updateTable("projects")
          .set({ custom_hostname: hostname, ...toDomainRow(domain) })
          .where("slug", "=", slug)
          .execute();
        if (change.release) await recordReleases(trx, [change.release]);
        return takenFrom === undefined ? {} : { takenFrom };
      });
    } catch (error) {
      if (hostname !== null && this.dialect.isUniqueViolation(error))
        throw new HostnameConflictError(hostname);
      throw error;
    }
  }

  async recordDomainCheck(
    slug: string,
    hostname: string,
    check: { status: DomainStatus; checkedAt: string; message: string | null },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable("projects")
      .set({ domain_status: check.status, domain_checked_at: check.checkedAt, domain_message: check.message })
      .where("slug", "=", slug)
      .where("custom_hostname", "=", hostname)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async markDomainContested(slug: string, hostname: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable("projects")
      .set({ domain_contested_at: sql<string>`coalesce(domain_contested_at, ${at})` })
      .where("slug", "=", slug)
      .where("custom_hostname", "=", hostname)
      .where("domain_status", "=", "pending")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async listPendingDomains(checkedBefore: string, limit: number): Promise<ProjectRecord[]> {
    const rows = await this.db
      .selectFrom("projects")
      .selectAll()
      .where("domain_status", "=", "pending")
      .where((eb) =>
        eb.or([eb("domain_checked_at", "is", null), eb("domain_checked_at", "<", checkedBefore)]),
      )
      .orderBy("domain_checked_at", (ob) => ob.asc().nullsFirst())
      .limit(limit)
      .execute();
    return rows.map(toProject);
  }

  async hasRevision(slug: string, revisionId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom("revisions")
      .select("revision_id")
      .where("project_slug", "=", slug)
      .where("revision_id", "=", revisionId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async getHostnameRelease(hostname: string): Promise<HostnameRelease | undefined> {
    return releaseOf(this.db, hostname);
  }

  async deleteProject(slug: string, releases: HostnameRelease[] = []): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await this.dialect.lockHostnames(
        trx,
        releases.map((r) => r.hostname),
      );
      // Deploys and revisions go with it through ON DELETE CASCADE, in the same statement.
      const result = await trx.deleteFrom("projects").where("slug", "=", slug).executeTakeFirst();
      const deleted = Number(result.numDeletedRows) > 0;
      if (deleted) await recordReleases(trx, releases);
      return deleted;
    });
  }

  async createDeploy(deploy: DeployRecord): Promise<void> {
    await this.db.insertInto("deploys").values(toDeployRow(deploy)).execute();
  }

  async getDeploy(projectSlug: string, deployId: string): Promise<DeployRecord | undefined> {
    const row = await this.db
      .selectFrom("deploys")
      .selectAll()
      .where("deploy_id", "=", deployId)
      .where("project_slug", "=", projectSlug)
      .executeTakeFirst();
    return row && toDeploy(row);
  }

  async completeDeploy(input: CompleteDeployInput): Promise<ProjectRecord> {
    return this.db.transaction().execute(async (trx) => {
      const deploy = await trx
        .updateTable("deploys")
        .set({ completed_at: input.completedAt, completion_hash: input.completionHash })
        .where("deploy_id", "=", input.deployId)
        .where("project_slug", "=", input.projectSlug)
        .where("completed_at", "is", null)
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("revisions")
        .values({
          project_slug: input.projectSlug,
          revision_id: deploy.revision_id,
          deploy_id: deploy.deploy_id,
          created_at: input.completedAt,
          file_count: deploy.file_count,
          byte_count: deploy.byte_count,
          preview: input.preview === true ? 1 : 0,
          manifest_digest: deploy.manifest_digest,
          message: input.message ?? null,
        })
        .execute();
      const project = await trx
        .updateTable("projects")
        .set(
          input.preview === true
            ? { expires_at: input.projectExpiresAt }
            : { revision_id: deploy.revision_id, expires_at: input.projectExpiresAt },
        )
        .where("slug", "=", input.projectSlug)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toProject(project);
    });
  }

  async renewProject(slug: string, expiresAt: string): Promise<ProjectRecord | undefined> {
    const row = await this.db
      .updateTable("projects")
      .set({ expires_at: expiresAt })
      .where("slug", "=", slug)
      .returningAll()
      .executeTakeFirst();
    return row && toProject(row);
  }

  async listRevisions(slug: string): Promise<RevisionRecord[]> {
    const rows = await this.db
      .selectFrom("revisions")
      .selectAll()
      .where("project_slug", "=", slug)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return rows.map(toRevision);
  }

  async setProductionRevision(slug: string, revisionId: string): Promise<ProjectRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const kept = await trx
        .selectFrom("revisions")
        .select("id")
        .where("project_slug", "=", slug)
        .where("revision_id", "=", revisionId)
        .executeTakeFirst();
      if (!kept) return undefined;
      const project = await trx
        .updateTable("projects")
        .set({ revision_id: revisionId })
        .where("slug", "=", slug)
        .returningAll()
        .executeTakeFirst();
      return project && toProject(project);
    });
  }

  async listPrunableRevisions(
    policy: RetentionPolicy,
    limit: number,
  ): Promise<Array<{ projectSlug: string; revisionId: string }>> {
    const onlyProject =
      policy.projectSlug === undefined ? sql`` : sql`WHERE project_slug = ${policy.projectSlug}`;
    // Past `max`, a revision goes whatever its age (0: no such bound).
    const max = policy.max ?? 0;
    const { rows } = await sql<{ project_slug: string; revision_id: string }>`
      SELECT ranked.project_slug, ranked.revision_id FROM (
        SELECT project_slug, revision_id, created_at, id,
          ROW_NUMBER() OVER (PARTITION BY project_slug ORDER BY created_at DESC, id DESC) AS place
        FROM revisions ${onlyProject}) ranked
      JOIN projects p ON p.slug = ranked.project_slug
      WHERE ranked.place > ${policy.keep}
        AND (ranked.created_at < ${policy.keepAfter} OR (${max} > 0 AND ranked.place > ${max}))
        AND (p.revision_id IS NULL OR p.revision_id <> ranked.revision_id)
      ORDER BY ranked.created_at, ranked.id
      LIMIT ${limit}`.execute(this.db);
    return rows.map((row) => ({ projectSlug: row.project_slug, revisionId: row.revision_id }));
  }

  async deleteRevisions(slug: string, revisionIds: string[]): Promise<number> {
    if (revisionIds.length === 0) return 0;
    return this.db.transaction().execute(async (trx) => {
      const project = await trx
        .selectFrom("projects")
        .select("revision_id")
        .where("slug", "=", slug)
        .executeTakeFirst();
      const doomed = revisionIds.filter((id) => id !== project?.revision_id);
      if (doomed.length === 0) return 0;
      const result = await trx
        .deleteFrom("revisions")
        .where("project_slug", "=", slug)
        .where("revision_id", "in", doomed)
        .executeTakeFirst();
      await trx
        .deleteFrom("deploys")
        .where("project_slug", "=", slug)
        .where("revision_id", "in", doomed)
        .execute();
      return Number(result.numDeletedRows);
    });
  }

  async deleteExpiredDeploys(before: string): Promise<number> {
    const result = await this.db
      .deleteFrom("deploys")
      .where("completed_at", "is", null)
      .where("expires_at", "<", before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async listProjectsExpiredBefore(before: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("projects")
      .select("slug")
      .where("expires_at", "<", before)
      .orderBy("expires_at")
      .limit(limit)
      .execute();
    return rows.map((row) => row.slug);
  }

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

async function releaseOf(db: Kysely<MetadataTables>, hostname: string): Promise<HostnameRelease | undefined> {
  const row = await db
    .selectFrom("hostname_releases")
    .selectAll()
    .where("hostname", "=", hostname)
    .executeTakeFirst();
  return row && toRelease(row);
}

/** Records releases, each replacing an earlier release of the same hostname. */
async function recordReleases(trx: Transaction<MetadataTables>, releases: HostnameRelease[]): Promise<void> {
  for (const release of releases) {
    const row = toReleaseRow(release);
    await trx
      .insertInto("hostname_releases")
      .values(row)
      .onConflict((oc) =>
        oc.column("hostname").doUpdateSet({
          project_slug: row.project_slug,
          released_at: row.released_at,
          withheld_until: row.withheld_until,
        }),
      )
      .execute();
  }
}
