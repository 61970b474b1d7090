import { type Kysely, type Selectable, sql } from "kysely";
import type { CompleteDeployInput, ProjectRecord } from "../../core/ports/index.js";
import { toProject } from "../sql/rows.js";
import type { MetadataTables } from "../sql/schema.js";

/**
 * The store's `completeDeploy` as one statement (PostgreSQL's data-modifying WITH): the deploy
 * marked complete if it was pending, its revision recorded, the project's published revision
 * (unless a preview) and expiry moved, atomically as the transaction of three statements it
 * replaces, in one round trip instead of five. Undefined, with nothing changed, when the deploy
 * was not pending or the project is gone. The parameters the SELECT inserts are cast: a bare one
 * there would be text, and no text goes into an integer column.
 */
export async function completeDeployStatement(
  db: Kysely<MetadataTables>,
  input: CompleteDeployInput,
): Promise<ProjectRecord | undefined> {
  const preview = input.preview === true;
  const { rows } = await sql<Selectable<MetadataTables["projects"]>>`
    WITH done AS (
      UPDATE deploys SET completed_at = ${input.completedAt}, completion_hash = ${input.completionHash}
      WHERE deploy_id = ${input.deployId} AND project_slug = ${input.projectSlug} AND completed_at IS NULL
      RETURNING revision_id, deploy_id, file_count, byte_count, manifest_digest),
    recorded AS (
      INSERT INTO revisions (project_slug, revision_id, deploy_id, created_at, file_count, byte_count,
        preview, manifest_digest, message)
      SELECT CAST(${input.projectSlug} AS TEXT), revision_id, deploy_id, CAST(${input.completedAt} AS TEXT),
        file_count, byte_count, CAST(${preview ? 1 : 0} AS INTEGER), manifest_digest,
        CAST(${input.message ?? null} AS TEXT)
      FROM done)
    UPDATE projects AS p SET ${preview ? sql`` : sql`revision_id = done.revision_id, `}expires_at = ${input.projectExpiresAt}
    FROM done WHERE p.slug = ${input.projectSlug}
    RETURNING p.*`.execute(db);
  const row = rows[0];
  return row && toProject(row);
}
