import type { Generated } from "kysely";

/** Tables of the metadata store, as Kysely sees them. Timestamps are ISO 8601 UTC strings. */
export interface MetadataTables {
  projects: {
    slug: string;
    project_hash: string;
    anon_fingerprint: string;
    token_hash: string;
    generated_hostname: string;
    custom_hostname: string | null;
    domain_status: string | null;
    domain_claimed_at: string | null;
    domain_checked_at: string | null;
    domain_message: string | null;
    domain_contested_at: string | null;
    revision_id: string | null;
    created_at: string;
    expires_at: string;
    created_by: string | null;
  };
  deploys: {
    deploy_id: string;
    project_slug: string;
    revision_id: string;
    session_id: string;
    created_at: string;
    expires_at: string;
    completed_at: string | null;
    completion_hash: string | null;
    file_count: number;
    byte_count: number;
    manifest_digest: string | null;
  };
  revisions: {
    id: Generated<number>;
    project_slug: string;
    revision_id: string;
    deploy_id: string;
    created_at: string;
    file_count: number;
    byte_count: number;
    /** 1 when completed as a preview. */
    preview: number;
    manifest_digest: string | null;
    /** The deploy's message, NULL without one. */
    message: Generated<string | null>;
  };
  hostname_releases: {
    hostname: string;
    project_slug: string;
    released_at: string;
    withheld_until: string | null;
  };
}
