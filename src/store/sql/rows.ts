import type { Selectable } from "kysely";
import type {
  DeployRecord,
  DomainState,
  HostnameRelease,
  ProjectRecord,
  RevisionRecord,
} from "../../core/ports/index.js";
import type { MetadataTables } from "./schema.js";

type ProjectRow = Selectable<MetadataTables["projects"]>;
type DeployRow = Selectable<MetadataTables["deploys"]>;
type RevisionRow = Selectable<MetadataTables["revisions"]>;
type ReleaseRow = Selectable<MetadataTables["hostname_releases"]>;

/** Column names are snake_case in SQL and camelCase in records; these map one to the other. */
export function toProjectRow(p: ProjectRecord): ProjectRow {
  return {
    slug: p.slug,
    project_hash: p.projectHash,
    anon_fingerprint: p.anonFingerprint,
    token_hash: p.tokenHash,
    generated_hostname: p.generatedHostname,
    custom_hostname: p.customHostname,
    ...toDomainRow(p.domain),
    revision_id: p.revisionId,
    created_at: p.createdAt,
    expires_at: p.expiresAt,
    created_by: p.createdBy ?? null,
  };
}

export function toProject(row: ProjectRow): ProjectRecord {
  return {
    slug: row.slug,
    projectHash: row.project_hash,
    anonFingerprint: row.anon_fingerprint,
    tokenHash: row.token_hash,
    generatedHostname: row.generated_hostname,
    customHostname: row.custom_hostname,
    domain:
      row.custom_hostname === null || row.domain_claimed_at === null
        ? null
        : {
            status: row.domain_status === "pending" ? "pending" : "active",
            claimedAt: row.domain_claimed_at,
            checkedAt: row.domain_checked_at,
            message: row.domain_message,
            ...(row.domain_contested_at === null ? {} : { contestedAt: row.domain_contested_at }),
          },
    revisionId: row.revision_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.created_by === null ? {} : { createdBy: row.created_by }),
  };
}

/** The domain_* columns of a project's custom hostname proof (all NULL without one). */
export function toDomainRow(domain: DomainState | null) {
  return {
    domain_status: domain?.status ?? null,
    domain_claimed_at: domain?.claimedAt ?? null,
    domain_checked_at: domain?.checkedAt ?? null,
    domain_message: domain?.message ?? null,
    domain_contested_at: domain?.contestedAt ?? null,
  };
}

export function toDeploy(row: DeployRow): DeployRecord {
  return {
    deployId: row.deploy_id,
    projectSlug: row.project_slug,
    revisionId: row.revision_id,
    sessionId: row.session_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    completedAt: row.completed_at,
    completionHash: row.completion_hash,
    fileCount: row.file_count,
    byteCount: row.byte_count,
    manifestDigest: row.manifest_digest,
  };
}

export function toDeployRow(deploy: DeployRecord): DeployRow {
  return {
    deploy_id: deploy.deployId,
    project_slug: deploy.projectSlug,
    revision_id: deploy.revisionId,
    session_id: deploy.sessionId,
    created_at: deploy.createdAt,
    expires_at: deploy.expiresAt,
    completed_at: deploy.completedAt,
    completion_hash: deploy.completionHash,
    file_count: deploy.fileCount,
    byte_count: deploy.byteCount,
    manifest_digest: deploy.manifestDigest,
  };
}

export function toRelease(row: ReleaseRow): HostnameRelease {
  return {
    hostname: row.hostname,
    projectSlug: row.project_slug,
    releasedAt: row.released_at,
    withheldUntil: row.withheld_until,
  };
}

export function toReleaseRow(release: HostnameRelease): ReleaseRow {
  return {
    hostname: release.hostname,
    project_slug: release.projectSlug,
    released_at: release.releasedAt,
    withheld_until: release.withheldUntil,
  };
}

export function toRevision(row: RevisionRow): RevisionRecord {
  return {
    revisionId: row.revision_id,
    deployId: row.deploy_id,
    createdAt: row.created_at,
    fileCount: row.file_count,
    byteCount: row.byte_count,
    preview: row.preview === 1,
    manifestDigest: row.manifest_digest,
    message: row.message,
  };
}
