import { type Kysely, sql } from "kysely";
import {
  type CompleteDeployInput,
  type DeployRecord,
  type DomainState,
  type DomainStatus,
  type HostnameRelease,
  isWithheld,
  type ProjectRecord,
  type RetentionPolicy,
  type RevisionRecord,
  type Store,
} from "../../core/ports/index.js";
import {
  listPendingDomains,
  markDomainContested,
  recordDomainCheck,
  recordReleases,
  releaseOf,
  setCustomHostname,
} from "./hostnames.js";
import { deleteRevisions, listPrunableRevisions, setProductionRevision } from "./revisions.js";
import { toDeploy, toDeployRow, toProject, toProjectRow, toRevision } from "./rows.js";
import type { MetadataTables } from "./schema.js";
import type { SqlDialect } from "./sql-dialect.js";

export type { SqlDialect } from "./sql-dialect.js";

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

  setCustomHostname(
    slug: string,
    hostname: string | null,
    change: { now?: string; release?: HostnameRelease; domain?: DomainState; takeOver?: boolean } = {},
  ): Promise<{ takenFrom?: string }> {
    return setCustomHostname(this.db, this.dialect, slug, hostname, change);
  }

  recordDomainCheck(
    slug: string,
    hostname: string,
    check: { status: DomainStatus; checkedAt: string; message: string | null },
  ): Promise<boolean> {
    return recordDomainCheck(this.db, slug, hostname, check);
  }

  markDomainContested(slug: string, hostname: string, at: string): Promise<boolean> {
    return markDomainContested(this.db, slug, hostname, at);
  }

  listPendingDomains(checkedBefore: string, limit: number): Promise<ProjectRecord[]> {
    return listPendingDomains(this.db, checkedBefore, limit);
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
    if (this.dialect.completeDeploy) {
      const project = await this.dialect.completeDeploy(this.db, input);
      if (!project) throw new Error(`deploy ${input.deployId} of ${input.projectSlug} is not pending`);
      return project;
    }
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

  async getRevision(slug: string, revisionId: string): Promise<RevisionRecord | undefined> {
    const row = await this.db
      .selectFrom("revisions")
      .selectAll()
      .where("project_slug", "=", slug)
      .where("revision_id", "=", revisionId)
      .executeTakeFirst();
    return row && toRevision(row);
  }

  setProductionRevision(slug: string, revisionId: string): Promise<ProjectRecord | undefined> {
    return setProductionRevision(this.db, slug, revisionId);
  }

  listPrunableRevisions(
    policy: RetentionPolicy,
    limit: number,
  ): Promise<Array<{ projectSlug: string; revisionId: string }>> {
    return listPrunableRevisions(this.db, policy, limit);
  }

  deleteRevisions(slug: string, revisionIds: string[]): Promise<number> {
    return deleteRevisions(this.db, slug, revisionIds);
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
