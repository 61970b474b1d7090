/**
 * The `expiresAt` of a project that never expires (`PROJECT_TTL_SECONDS=0`): the last millisecond
 * ISO 8601 can write with four digits. It sorts after every real time, byte by byte as the stores
 * compare it, so every "expired before" query and every edge check passes it by without a special
 * case, and a later deploy under a positive TTL simply replaces it.
 */
export const NEVER_EXPIRES_AT = "9999-12-31T23:59:59.999Z";

/** When a project deployed (or created, or renewed) at `now` expires; `ttlSeconds` 0 is never. */
export function projectExpiry(now: Date, ttlSeconds: number): Date {
  if (ttlSeconds === 0) return new Date(NEVER_EXPIRES_AT);
  return new Date(now.getTime() + ttlSeconds * 1000);
}

/** True when `expiresAt` (ISO 8601) is the time of a project that never expires. */
export function neverExpires(expiresAt: string): boolean {
  return expiresAt === NEVER_EXPIRES_AT;
}
