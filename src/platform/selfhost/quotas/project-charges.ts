import { sql } from "kysely";
import { type Executor, firstOf } from "../state/platform-db.js";

/**
 * The table of what each project is charged (`project_charges`): the client address that created
 * it and when (CLIENT_QUOTA_BYTES counts a client's projects created within its window), and the
 * charge of its kept revisions as of its last publish or prune, so that a client's sum over its
 * projects is one indexed query however many it has; and whether that charge is still the full sum
 * (`charge_exact`): a publish adds to an exact one what its revision adds (added-charge.ts), and
 * sums the whole project again on any other.
 */

/** Who created a project, and when (milliseconds since the epoch). */
export interface ProjectOwner {
  clientAddress: string;
  createdAt: number;
}

/** Records who created a project, unless known already. */
export async function recordOwner(trx: Executor, projectSlug: string, owner: ProjectOwner): Promise<void> {
  await sql`INSERT INTO project_charges (project_slug, client_address, created_at, charged_bytes)
    VALUES (${projectSlug}, ${owner.clientAddress}, ${owner.createdAt}, 0)
    ON CONFLICT (project_slug) DO UPDATE SET
      client_address = COALESCE(project_charges.client_address, excluded.client_address),
      created_at = COALESCE(project_charges.created_at, excluded.created_at)`.execute(trx);
}

/** A project's row of `project_charges`. */
export interface ChargeRow {
  owner: ProjectOwner | undefined;
  chargedBytes: number;
  /** True when chargedBytes is the full sum of what the project keeps now (recordCharge's). */
  exact: boolean;
}

/** The project's owner and recorded charge, if it has a row. */
export async function chargeRowOf(trx: Executor, projectSlug: string): Promise<ChargeRow | undefined> {
  const row = await firstOf(
    trx,
    sql<{
      client_address: string | null;
      created_at: number | string | null;
      charged_bytes: number | string;
      charge_exact: number | string;
    }>`SELECT client_address, created_at, charged_bytes, charge_exact FROM project_charges
      WHERE project_slug = ${projectSlug}`,
  );
  if (!row) return undefined;
  const owner =
    row.client_address === null || row.created_at === null
      ? undefined
      : { clientAddress: row.client_address, createdAt: Number(row.created_at) };
  return { owner, chargedBytes: Number(row.charged_bytes), exact: Number(row.charge_exact) === 1 };
}

/** Records the project's charge now: the full sum of what it keeps. */
export async function recordCharge(trx: Executor, projectSlug: string, chargedBytes: number): Promise<void> {
  await sql`INSERT INTO project_charges (project_slug, client_address, created_at, charged_bytes, charge_exact)
    VALUES (${projectSlug}, NULL, NULL, ${chargedBytes}, 1)
    ON CONFLICT (project_slug) DO UPDATE SET charged_bytes = excluded.charged_bytes,
      charge_exact = 1`.execute(trx);
}

/**
 * Records that the project's charge may no longer be the full sum (its manifests are about to go
 * outside a publish's or prune's accounting): its next publish sums it whole.
 */
export async function chargeNoLongerExact(trx: Executor, projectSlug: string): Promise<void> {
  await sql`UPDATE project_charges SET charge_exact = 0
    WHERE project_slug = ${projectSlug} AND charge_exact <> 0`.execute(trx);
}

/**
 * The recorded charges of the projects `clientAddress` created at or after `since`, but
 * `exceptSlug` (whose charge the caller counts as it is now).
 */
export async function clientCharge(
  trx: Executor,
  clientAddress: string,
  since: number,
  exceptSlug: string,
): Promise<number> {
  const row = await firstOf(
    trx,
    sql<{ n: number | string }>`SELECT CAST(COALESCE(SUM(charged_bytes), 0) AS BIGINT) AS n
      FROM project_charges WHERE client_address = ${clientAddress} AND created_at >= ${since}
        AND project_slug <> ${exceptSlug}`,
  );
  return Number(row!.n);
}

/** Forgets a project's charge (it was deleted: its content is no longer its own). */
export async function forgetCharge(trx: Executor, projectSlug: string): Promise<void> {
  await sql`DELETE FROM project_charges WHERE project_slug = ${projectSlug}`.execute(trx);
}
