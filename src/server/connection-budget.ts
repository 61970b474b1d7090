import type { Role } from "../shared/observability/metrics.js";

/** The fewest connections DATABASE_MAX_CONNECTIONS may allow: every part of a full process gets its own. */
export const MIN_DATABASE_CONNECTIONS = 6;

/**
 * How a process's PostgreSQL connections (DATABASE_MAX_CONNECTIONS) are shared among what opens
 * them; the parts add up to the setting, so the process never holds more.
 */
export interface ConnectionBudget {
  /** The metadata store's pool (and the shared rate limits, which use it). */
  store: number;
  /** The platform's pool: upload sessions, publishes, the edge's lookups. */
  platform: number;
  /** The project locks' sessions (PostgresLocks); 0 without the api role, which alone takes them. */
  locks: number;
  /** The edge's LISTEN connection for other processes' manifest writes; 0 without the edge role. */
  listen: number;
}

/**
 * Splits `total` connections for a process running `roles`. An edge hears the manifest's
 * notifications on one connection; an API holds project locks on at least two (one session shared
 * by uncontended locks, one to wait on); the rest go half to the store and half to the platform in
 * an API process, and all but one to the platform elsewhere (an upload or edge process barely
 * touches the store: its health check).
 */
export function connectionBudget(total: number, roles: readonly Role[]): ConnectionBudget {
  if (!Number.isInteger(total) || total < MIN_DATABASE_CONNECTIONS) {
    throw new RangeError(`a process needs at least ${MIN_DATABASE_CONNECTIONS} connections, not ${total}`);
  }
  const api = roles.includes("api");
  const listen = roles.includes("edge") ? 1 : 0;
  const locks = api ? Math.max(2, Math.floor(total / 5)) : 0;
  const rest = total - listen - locks;
  const store = api ? Math.floor(rest / 2) : 1;
  return { store, platform: rest - store, locks, listen };
}
