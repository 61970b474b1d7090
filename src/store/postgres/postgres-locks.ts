import type pg from "pg";
import type { Locks } from "../../core/ports/index.js";
import { KeyedLock } from "../../shared/keyed-lock.js";
import { createPostgresPool, type PostgresOptions } from "../../shared/database/postgres.js";
import { asUnavailable } from "./unavailable.js";

/** The first key of the per-project advisory locks (the second is the slug's hash). */
export const PROJECT_LOCK_SPACE = 0x5d_02;
/** The first key of the locks of work one process at a time does (tryRun: the sweep). */
export const EXCLUSIVE_LOCK_SPACE = 0x5d_03;

/**
 * Per-project locks shared by every process on one PostgreSQL database: a session advisory lock
 * on a connection held for the work's duration. Within a process the in-memory lock goes first,
 * so a process holds at most one connection per project it works on, and waiters of the same
 * process queue in memory rather than on the database. The connections come from a pool of their
 * own: work under a lock uses the store's pool, which lock holders can therefore never exhaust.
 * If the connection drops while the work runs (a restart), the lock is lost with it; the work
 * goes on and its transactions still hold their own row and hostname locks.
 */
export class PostgresLocks implements Locks {
  private readonly local = new KeyedLock();
  private readonly pool: pg.Pool;

  constructor(options: PostgresOptions) {
    // A lock may wait for another process's whole request (a large publish): the wait is bounded
    // by a longer statement timeout than a query's, still an error rather than a hang.
    this.pool = createPostgresPool({
      ...options,
      statementTimeoutMs: 300_000,
      maxConnections: 20,
      applicationName: "static-deploy locks",
    });
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.local.run(key, async () => {
      const client = await this.pool.connect().catch(asUnavailable);
      try {
        await client.query("SELECT pg_advisory_lock($1, hashtext($2))", [PROJECT_LOCK_SPACE, key]);
      } catch (error) {
        client.release(true);
        return asUnavailable(error);
      }
      try {
        return await work();
      } finally {
        await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [PROJECT_LOCK_SPACE, key]).then(
          () => client.release(),
          // The session is gone or unsure: closing it drops whatever lock it still held.
          () => client.release(true),
        );
      }
    });
  }

  async tryRun<T>(key: string, work: () => Promise<T>): Promise<T | undefined> {
    const client = await this.pool.connect().catch(asUnavailable);
    let locked: boolean;
    try {
      const { rows } = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked",
        [EXCLUSIVE_LOCK_SPACE, key],
      );
      locked = rows[0]?.locked === true;
    } catch (error) {
      client.release(true);
      return asUnavailable(error);
    }
    if (!locked) {
      client.release();
      return undefined;
    }
    try {
      return await work();
    } finally {
      await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [EXCLUSIVE_LOCK_SPACE, key]).then(
        () => client.release(),
        () => client.release(true),
      );
    }
  }

  /** Closes the lock connections (call after the work using them has ended). */
  async close(): Promise<void> {
    await this.pool.end();
  }
}
