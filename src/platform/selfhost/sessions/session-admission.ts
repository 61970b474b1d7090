import { InsufficientStorageError } from "../../../core/errors.js";
import { generateOpaqueId } from "../../../core/ids.js";
import { Pacer } from "../../../shared/event-loop.js";
import type { UploadSession, UploadSessionRequest } from "../../../core/ports/index.js";
import { type BucketLimits, groupIntoBuckets } from "./buckets.js";
import type { UploadTokens } from "./upload-tokens.js";
import type { UploadSessions } from "./upload-sessions.js";
import { WRITE_SLICE_MS } from "./session-rows.js";
import { lockKeys, type PlatformDatabase } from "../state/platform-db.js";
import type { ProjectOwner } from "../quotas/project-charges.js";
import { type PrepareCharge, pendingQuotaError, type QuotaGate } from "../quotas/quota-gate.js";
import { isOutOfSpace, lacksRoomFor, type StorageLimits, UNLIMITED } from "../quotas/storage-limits.js";

// A prepare on the self-hosted platform (SelfHostedPlatform.openUploadSession): the session's rows
// written, its charge found, the session admitted against the quotas, its buckets and token made.

/** The platform's settings and parts a session is opened with (SelfHostedPlatformOptions has them). */
export interface SessionSettings {
  db: PlatformDatabase;
  sessions: UploadSessions;
  tokens: UploadTokens;
  accountId: string;
  /** Full URL of the built-in upload service's bucket endpoint. */
  uploadUrl: string;
  bucketLimits: BucketLimits;
  /** Quotas and the free-space guard; none by default. */
  storage?: StorageLimits;
  now: () => number;
}

/** What opening and admitting a session needs of the platform: its settings and its quota gate. */
export interface AdmissionDeps extends SessionSettings {
  quotas: QuotaGate;
}

/**
 * Opens an upload session for a manifest: writes its rows (UploadSessions.open), charges and
 * admits it (a session refused is discarded whole), groups what is missing into buckets and signs
 * the upload token.
 */
export async function openAdmittedSession(
  deps: AdmissionDeps,
  input: UploadSessionRequest,
): Promise<UploadSession> {
  const { sessions, tokens, accountId, now, quotas } = deps;
  const sessionId = generateOpaqueId();
  const expiresAt = input.expiresAt.getTime();
  // One pace for the whole prepare: every loop over its entries and rows yields when due.
  const pacer = new Pacer(WRITE_SLICE_MS);
  await quotas.refuseManifest(input.projectSlug, input.entries, pacer);
  let opened;
  try {
    opened = await sessions.open(
      { id: sessionId, projectSlug: input.projectSlug, expiresAt },
      input.entries,
      now(),
      pacer,
      input.byPath,
    );
  } catch (error) {
    if (isOutOfSpace(error)) throw new InsufficientStorageError(undefined, { cause: error });
    throw error;
  }
  const { missing } = opened;
  const asked = missing.reduce((sum, asset) => sum + asset.size, 0);
  const charge = await quotas.chargeOf(input.entries, opened, asked, pacer);
  const owner = input.owner && {
    clientAddress: input.owner.clientAddress,
    createdAt: input.owner.createdAt.getTime(),
  };
  try {
    const session = { id: sessionId, digest: input.manifestDigest ?? null };
    await admit(deps, input.projectSlug, session, input.clientAddress, owner, asked, charge, pacer);
  } catch (error) {
    await sessions.discard(sessionId, pacer);
    if (isOutOfSpace(error)) throw new InsufficientStorageError(undefined, { cause: error });
    throw error;
  }
  const buckets = await groupIntoBuckets(missing, deps.bucketLimits, pacer);
  // With nothing to upload, the upload token is itself the completion token (Cloudflare's rule).
  const purposes = buckets.length === 0 ? (["upload", "completion"] as const) : (["upload"] as const);
  const uploadJwt = await tokens.sign([...purposes], sessionId, accountId, input.expiresAt);
  return {
    sessionId,
    accountId,
    uploadJwt,
    buckets,
    uploadUrl: deps.uploadUrl,
    expiresAt: input.expiresAt,
  };
}

/**
 * Admits a session that asks for `asked` bytes and is charged `charge`: storage must have room
 * for the upload (MIN_FREE_BYTES), the project stay within its quota across its kept revisions,
 * the projects its owner created within the client quota, the client address within its quota
 * of bytes prepared and not deployed. The quotas are checked and the reservation recorded in one
 * transaction, so racing prepares of one project, owner or address cannot both take the same room.
 */
async function admit(
  deps: AdmissionDeps,
  projectSlug: string,
  session: { id: string; digest: string | null },
  clientAddress: string | undefined,
  owner: ProjectOwner | undefined,
  asked: number,
  charge: PrepareCharge,
  pacer: Pacer,
): Promise<void> {
  const { db, sessions, now, quotas } = deps;
  const storage = deps.storage ?? UNLIMITED;
  const { pendingQuotaBytes } = storage;
  if (asked > 0 && (await lacksRoomFor(storage, asked))) throw new InsufficientStorageError();
  await db.transaction(async (trx) => {
    // Racing prepares (of any process, on PostgreSQL) of one project, owner or address count in turn.
    await lockKeys(db, trx, [
      `project ${projectSlug}`,
      ...(owner ? [`owner ${owner.clientAddress}`] : []),
      ...(clientAddress ? [`address ${clientAddress}`] : []),
    ]);
    await quotas.admit(trx, projectSlug, owner, charge.added, pacer);
    if (pendingQuotaBytes > 0 && clientAddress !== undefined && charge.pending > 0) {
      const pending = await sessions.pendingBytesOf(trx, clientAddress, now());
      if (pending + charge.pending > pendingQuotaBytes) {
        throw pendingQuotaError(pendingQuotaBytes, pending, charge.pending);
      }
    }
    await sessions.reserve(trx, session.id, clientAddress ?? null, charge.pending, session.digest);
  });
}
