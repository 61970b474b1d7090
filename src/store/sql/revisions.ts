import { type Kysely, sql } from "kysely";
import type { ProjectRecord, RetentionPolicy } from "../../core/ports/index.js";
import { toProject } from "./rows.js";
import type { MetadataTables } from "./schema.js";

// The store's revisions: which is production, which may go, and their removal.

/** Makes a kept revision the production one (Store.setProductionRevision). */
export async function setProductionRevision(
  db: Kysely<MetadataTables>,
  slug: string,
  revisionId: string,
): Promise<ProjectRecord | undefined> {
  return db.transaction().execute(async (trx) => {
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

/** Revisions the retention policy lets go, oldest first (Store.listPrunableRevisions). */
export async function listPrunableRevisions(
  db: Kysely<MetadataTables>,
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
    LIMIT ${limit}`.execute(db);
  return rows.map((row) => ({ projectSlug: row.project_slug, revisionId: row.revision_id }));
}

/** Deletes revisions other than production, with their deploys (Store.deleteRevisions). */
export async function deleteRevisions(
  db: Kysely<MetadataTables>,
  slug: string,
  revisionIds: string[],
): Promise<number> {
  if (revisionIds.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
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
