import { QuotaExceededError } from "../../../core/errors.js";
import type { Pacer } from "../../../shared/event-loop.js";
import type { ManifestEntry } from "../../../core/manifest.js";
import { type Executor, type PlatformDatabase } from "../state/platform-db.js";
import {
  chargeRowOf,
  clientCharge,
  forgetCharge,
  type ProjectOwner,
  recordCharge,
  recordOwner,
} from "./project-charges.js";
import { keptCharge } from "./kept-charge.js";
import { addedCharge, type AddedRevision } from "./added-charge.js";
import {
  contentCharge,
  freshContentCharge,
  manifestCharge,
  REVISION_BYTES,
  rowsCharge,
} from "./quota-charges.js";
import { describeBytes, type StorageLimits } from "./storage-limits.js";

/** What a prepare adds to its project's charge, and what it puts in its client's pending bytes. */
export interface PrepareCharge {
  /** The new revision: its rows, a revision's fixed cost, and content the project does not keep. */
  added: number;
  /** Bytes to upload plus the session's rows, until published or expired (PENDING_QUOTA_BYTES). */
  pending: number;
}

/**
 * The project and client quotas (contract §1, "What a quota counts"): judged at prepare with the
 * manifest's declared sizes and again, authoritatively, at publish with what was recorded, where
 * each project's charge is recorded for its client's sum.
 */
export class QuotaGate {
  constructor(
    private readonly database: PlatformDatabase,
    private readonly limits: StorageLimits,
    private readonly now: () => number,
  ) {}

  private get variantsAbove(): number {
    return this.limits.diskVariantsAbove ?? 0;
  }

  /**
   * What a session of `entries` is charged (paced by `pacer`), its fresh content as opening it
   * counted (`fresh`, OpenedSession): by the sizes it counted, or for a delta session by a pass
   * over every entry of its manifest.
   */
  async chargeOf(
    entries: readonly ManifestEntry[],
    fresh: { addedBytes: number; compressibleSizes: readonly number[]; added?: ReadonlyMap<string, number> },
    asked: number,
    pacer: Pacer,
  ): Promise<PrepareCharge> {
    const rows = await rowsCharge(entries, pacer);
    const content = fresh.added
      ? await contentCharge(entries, fresh.added, this.variantsAbove, pacer)
      : freshContentCharge(fresh.addedBytes, fresh.compressibleSizes, this.variantsAbove);
    return { added: REVISION_BYTES + rows + content, pending: asked + rows };
  }

  /**
   * Refuses at once, before a row is written, a manifest whose charge alone (as a revision of a
   * project that kept nothing else) is over the project quota.
   */
  async refuseManifest(projectSlug: string, entries: readonly ManifestEntry[], pacer: Pacer): Promise<void> {
    const limit = this.limits.projectQuotaBytes;
    if (limit <= 0) return;
    const total = await manifestCharge(entries, this.variantsAbove, pacer);
    if (total <= limit) return;
    const kept = await keptCharge(
      this.database.db,
      this.database.dialect,
      projectSlug,
      this.variantsAbove,
      pacer,
    );
    throw this.projectError(total, kept);
  }

  /**
   * In the transaction that reserves a session: records the project's owner, and refuses what
   * would take the project past its quota, or its owner's projects past the client quota.
   *
   * The project's kept charge is the one its last publish or prune recorded, when it has one:
   * summing its content again cost every prepare of a 10,000-file project some 30 ms of SQLite
   * (BENCHMARKS.md, issue 32), and only a publish adds to it, recording it in its transaction. A
   * recorded charge is high at worst (a revision expired since), so a refusal is judged again on
   * the charge summed now; a low one (revisions kept from before charges were recorded, never
   * marked exact) lets a session in that its publish, which then sums the charge whole, refuses.
   */
  async admit(
    trx: Executor,
    projectSlug: string,
    owner: ProjectOwner | undefined,
    added: number,
    pacer?: Pacer,
  ): Promise<void> {
    const recorded = await chargeRowOf(trx, projectSlug);
    if (owner) await recordOwner(trx, projectSlug, owner);
    if (this.limits.projectQuotaBytes <= 0 && !this.counts(owner)) return;
    if (recorded !== undefined) {
      try {
        await this.judge(trx, projectSlug, owner, recorded.chargedBytes, added);
        return;
      } catch (error) {
        if (!(error instanceof QuotaExceededError)) throw error;
      }
    }
    const kept = await keptCharge(trx, this.database.dialect, projectSlug, this.variantsAbove, pacer);
    await this.judge(trx, projectSlug, owner, kept, added);
  }

  /**
   * In the transaction that published a revision: records the project's charge, refusing (the
   * transaction then writes nothing) a charge that grew past a quota, as two sessions prepared at
   * once, or parts that declared compressible types their paths did not have, could make it.
   *
   * The charge is the one recorded before plus what the publish `added` (added-charge.ts), when
   * that one is the full sum (`exact`): summing the whole project cost a 1%-changed redeploy of
   * 10,000 files 21 ms of SQLite's thread in 65 statements (BENCHMARKS.md, issue 32). Otherwise (a
   * charge from before the column, a manifest gone since, a revision published again) it is summed.
   */
  async published(trx: Executor, projectSlug: string, added?: AddedRevision, pacer?: Pacer): Promise<void> {
    const before = await chargeRowOf(trx, projectSlug);
    const base = before?.chargedBytes ?? 0;
    let after: number;
    if (before?.exact === true && added !== undefined) {
      const { dialect } = this.database;
      after = base + (await addedCharge(trx, dialect, projectSlug, added, this.variantsAbove, pacer));
      await recordCharge(trx, projectSlug, after);
    } else after = await this.recharge(trx, projectSlug, pacer);
    if (after > base) await this.judge(trx, projectSlug, before?.owner, base, after - base);
  }

  /** Records the project's charge as it is now (after a prune). */
  async recharge(trx: Executor, projectSlug: string, pacer?: Pacer): Promise<number> {
    const charge = await keptCharge(trx, this.database.dialect, projectSlug, this.variantsAbove, pacer);
    await recordCharge(trx, projectSlug, charge);
    return charge;
  }

  /** Forgets a deleted project's charge. */
  forget(trx: Executor, projectSlug: string): Promise<void> {
    return forgetCharge(trx, projectSlug);
  }

  /** True when the client quota counts the projects `owner` created (it was created in the window). */
  private counts(owner: ProjectOwner | undefined): owner is ProjectOwner {
    const quota = this.limits.clientQuotaBytes ?? 0;
    return owner !== undefined && quota > 0 && owner.createdAt >= this.windowStart();
  }

  private windowStart(): number {
    return this.now() - (this.limits.clientQuotaWindowSeconds ?? 0) * 1000;
  }

  /**
   * Throws when `added` more on the project's `kept` charge takes it over its quota, or takes the
   * sum over its owner's projects created in the window over the client quota.
   */
  private async judge(
    trx: Executor,
    projectSlug: string,
    owner: ProjectOwner | undefined,
    kept: number,
    added: number,
  ): Promise<void> {
    const { projectQuotaBytes } = this.limits;
    if (projectQuotaBytes > 0 && kept + added > projectQuotaBytes) {
      throw this.projectError(kept + added, kept);
    }
    if (!this.counts(owner)) return;
    const quota = this.limits.clientQuotaBytes ?? 0;
    const others = await clientCharge(trx, owner.clientAddress, this.windowStart(), projectSlug);
    if (others + kept + added <= quota) return;
    const left = Math.max(0, quota - others - kept);
    throw new QuotaExceededError(
      "client",
      quota,
      left,
      `client quota exceeded: the projects this client address created in the last ` +
        `${this.limits.clientQuotaWindowSeconds ?? 0} s would keep ${describeBytes(others + kept + added)}; ` +
        `the limit (CLIENT_QUOTA_BYTES) is ${describeBytes(quota)}, ${describeBytes(left)} left`,
    );
  }

  private projectError(total: number, kept: number): QuotaExceededError {
    const limit = this.limits.projectQuotaBytes;
    const left = Math.max(0, limit - kept);
    return new QuotaExceededError(
      "project",
      limit,
      left,
      `project quota exceeded: this deploy would keep ${describeBytes(total)} across the project's ` +
        `revisions (content, its compressed variants, manifest rows and revisions); the limit ` +
        `(PROJECT_QUOTA_BYTES) is ${describeBytes(limit)}, ${describeBytes(left)} left`,
    );
  }
}

/** The refusal of a prepare that would take its client address past PENDING_QUOTA_BYTES. */
export function pendingQuotaError(limit: number, pending: number, asked: number): QuotaExceededError {
  const left = Math.max(0, limit - pending);
  return new QuotaExceededError(
    "pending",
    limit,
    left,
    `pending quota exceeded: this prepare asks for ${describeBytes(asked)} (content to upload and ` +
      `manifest rows) and this client address has ${describeBytes(pending)} prepared and not ` +
      `deployed; the limit (PENDING_QUOTA_BYTES) is ${describeBytes(limit)}, ${describeBytes(left)} ` +
      "left. Deploy or wait for earlier preparations to expire.",
  );
}
