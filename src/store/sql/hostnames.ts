import { type Kysely, sql, type Transaction } from "kysely";
import {
  type DomainState,
  type DomainStatus,
  HostnameConflictError,
  type HostnameRelease,
  HostnameWithheldError,
  isWithheld,
  type ProjectRecord,
} from "../../core/ports/index.js";
import { toDomainRow, toProject, toRelease, toReleaseRow } from "./rows.js";
import type { MetadataTables } from "./schema.js";
import type { SqlDialect } from "./sql-dialect.js";

// The store's custom hostnames: who holds a name, its releases and quarantines, its DNS checks.

/** Sets or clears a project's custom hostname (Store.setCustomHostname). */
export async function setCustomHostname(
  db: Kysely<MetadataTables>,
  dialect: SqlDialect,
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
    return await db.transaction().execute(async (trx) => {
      let takenFrom: string | undefined;
      await dialect.lockHostnames(trx, [hostname, change.release?.hostname]);
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
    if (hostname !== null && dialect.isUniqueViolation(error)) throw new HostnameConflictError(hostname);
    throw error;
  }
}

/** Records the outcome of a DNS check of a pending name (Store.recordDomainCheck). */
export async function recordDomainCheck(
  db: Kysely<MetadataTables>,
  slug: string,
  hostname: string,
  check: { status: DomainStatus; checkedAt: string; message: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable("projects")
    .set({ domain_status: check.status, domain_checked_at: check.checkedAt, domain_message: check.message })
    .where("slug", "=", slug)
    .where("custom_hostname", "=", hostname)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks a pending name as claimed first by this project (Store.markDomainContested). */
export async function markDomainContested(
  db: Kysely<MetadataTables>,
  slug: string,
  hostname: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable("projects")
    .set({ domain_contested_at: sql<string>`coalesce(domain_contested_at, ${at})` })
    .where("slug", "=", slug)
    .where("custom_hostname", "=", hostname)
    .where("domain_status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Pending names not checked since `checkedBefore`, the longest unchecked first. */
export async function listPendingDomains(
  db: Kysely<MetadataTables>,
  checkedBefore: string,
  limit: number,
): Promise<ProjectRecord[]> {
  const rows = await db
    .selectFrom("projects")
    .selectAll()
    .where("domain_status", "=", "pending")
    .where((eb) => eb.or([eb("domain_checked_at", "is", null), eb("domain_checked_at", "<", checkedBefore)]))
    .orderBy("domain_checked_at", (ob) => ob.asc().nullsFirst())
    .limit(limit)
    .execute();
  return rows.map(toProject);
}

/** The release of a hostname, if any. */
export async function releaseOf(
  db: Kysely<MetadataTables>,
  hostname: string,
): Promise<HostnameRelease | undefined> {
  const row = await db
    .selectFrom("hostname_releases")
    .selectAll()
    .where("hostname", "=", hostname)
    .executeTakeFirst();
  return row && toRelease(row);
}

/** Records releases, each replacing an earlier release of the same hostname. */
export async function recordReleases(
  trx: Transaction<MetadataTables>,
  releases: HostnameRelease[],
): Promise<void> {
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
