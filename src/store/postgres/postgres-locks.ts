import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import type pg from "pg";
import type { Locks } from "../../core/ports/index.js";
import { KeyedLock } from "../../shared/keyed-lock.js";
import { Semaphore } from "../../shared/semaphore.js";
import { createPostgresPool, type PostgresOptions } from "../../shared/database/postgres.js";
import { asUnavailable } from "./unavailable.js";

/** The first key of the per-project advisory locks (the second is the slug's hash). */
export const PROJECT_LOCK_SPACE = 0x5d_02;
/** The first key of the locks of work one process at a time does (tryRun: the sweep). */
export const EXCLUSIVE_LOCK_SPACE = 0x5d_03;
/** Lock sessions a process opens at most when the options do not say (maxConnections). */
export const DEFAULT_LOCK_SESSIONS = 2;

/** The session a piece of work and the work it starts hold their locks on. */
interface Session {
  client: pg.PoolClient;
  /** Locks held on it by this work and its callers (`<space>:<key>`): taken again, they are held already. */
  held: ReadonlySet<string>;
  /**
   * broken: an unlock failed, the session may still hold a lock and must be closed, not pooled;
   * done: the work that took it has ended and given it back (work it left running is on its own).
   */
  state: { broken: boolean; done: boolean };
}

/**
 * Per-project locks shared by every process on one PostgreSQL database: session advisory locks,
 * held on a connection for the work's duration. The connections come from a pool of their own,
 * bounded (`maxConnections`), and are taken in an order that cannot deadlock it:
 * 1. a permit (one per connection), waited for in order, while holding nothing;
 * 2. then the in-memory lock of the key, so waiters of one process queue in memory, not on the
 *    database;
 * 3. then a connection (free: there are as many as permits) and the advisory lock on it.
 * A lock taken inside another's work (a second project, the sweep's projects) goes on the same
 * session and needs no other connection, and the same key taken again inside is held already; so
 * each piece of work holds at most one connection, and waits only for locks whose holders hold
 * theirs. Work under a lock uses the store's pool, which lock holders can therefore never exhaust.
 * If the connection drops while the work runs (a restart), the lock is lost with it; the work
 * goes on and its transactions still hold their own row and hostname locks.
 */
export class PostgresLocks implements Locks {
  private readonly local = new KeyedLock();
  private readonly permits: Semaphore;
  private readonly session = new AsyncLocalStorage<Session>();
  /** tryRun keys this process runs now: a second call is refused without asking the database. */
  private readonly running = new Set<string>();
  private readonly pool: pg.Pool;
  /** Who this process is in the turns it holds. */
  private readonly holder = `${process.pid}-${randomBytes(6).toString("hex")}`;
  private readonly now: () => number;

  /** `now`: the clock turns are claimed by (milliseconds since the epoch). */
  constructor(options: PostgresOptions, { now = Date.now }: { now?: () => number } = {}) {
    this.now = now;
    const sessions = options.maxConnections ?? DEFAULT_LOCK_SESSIONS;
    this.permits = new Semaphore(sessions);
    // A lock may wait for another process's whole request (a large publish): the wait is bounded
    // by a longer statement timeout than a query's, still an error rather than a hang.
    this.pool = createPostgresPool({
      ...options,
      statementTimeoutMs: 300_000,
      maxConnections: sessions,
      applicationName: options.applicationName ?? "static-deploy locks",
    });
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const name = `${PROJECT_LOCK_SPACE}:${key}`;
    const outer = this.current();
    if (outer?.held.has(name)) return work();
    const lock = (session: Session) => this.local.run(key, () => this.locked(session, name, key, work));
    if (outer) return lock(outer);
    return this.permits.run(() => this.withSession(lock));
  }

  async tryRun<T>(key: string, work: () => Promise<T>): Promise<T | undefined> {
    const name = `${EXCLUSIVE_LOCK_SPACE}:${key}`;
    const outer = this.current();
    if (outer?.held.has(name)) return work();
    // A session holding an advisory lock may take it again: this process's own holder must refuse.
    if (this.running.has(key)) return undefined;
    this.running.add(key);
    try {
      const attempt = (session: Session) => this.tryLocked(session, name, key, work);
      return await (outer ? attempt(outer) : this.permits.run(() => this.withSession(attempt)));
    } finally {
      this.running.delete(key);
    }
  }

  /**
   * Takes the turn `name` for `ttlMs` if its last holder's has run out (or there was none): one
   * upsert on the store's `turns` table, which every process sharing the database sees.
   */
  async claimTurn(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const claim = async ({ client }: Session) => {
      const { rowCount } = await client
        .query(
          `INSERT INTO turns AS t (name, holder, expires_at) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
           WHERE t.expires_at <= $4`,
          [name, this.holder, now + ttlMs, now],
        )
        .catch(asUnavailable);
      return rowCount === 1;
    };
    const outer = this.current();
    return outer ? claim(outer) : this.permits.run(() => this.withSession(claim));
  }

  /** Closes the lock connections (call after the work using them has ended). */
  async close(): Promise<void> {
    await this.pool.end();
  }

  /** The session of the work this call runs inside, unless that work has ended. */
  private current(): Session | undefined {
    const session = this.session.getStore();
    return session?.state.done ? undefined : session;
  }

  /** Runs `use` on a connection of the pool, given back afterwards (closed if it may still hold a lock). */
  private async withSession<T>(use: (session: Session) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch(asUnavailable);
    const session: Session = { client, held: new Set(), state: { broken: false, done: false } };
    try {
      return await use(session);
    } finally {
      session.state.done = true;
      client.release(session.state.broken);
    }
  }

  /** Takes the lock `name` on the session (waiting for it), runs `work`, lets go. */
  private async locked<T>(session: Session, name: string, key: string, work: () => Promise<T>): Promise<T> {
    try {
      await session.client.query("SELECT pg_advisory_lock($1, hashtext($2))", [PROJECT_LOCK_SPACE, key]);
    } catch (error) {
      session.state.broken = true;
      return asUnavailable(error);
    }
    return this.holding(session, name, PROJECT_LOCK_SPACE, key, work);
  }

  /** Takes the lock `name` on the session if no one holds it: runs `work`, or answers undefined. */
  private async tryLocked<T>(
    session: Session,
    name: string,
    key: string,
    work: () => Promise<T>,
  ): Promise<T | undefined> {
    let locked: boolean;
    try {
      const { rows } = await session.client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked",
        [EXCLUSIVE_LOCK_SPACE, key],
      );
      locked = rows[0]?.locked === true;
    } catch (error) {
      session.state.broken = true;
      return asUnavailable(error);
    }
    if (!locked) return undefined;
    return this.holding(session, name, EXCLUSIVE_LOCK_SPACE, key, work);
  }

  /** Runs `work` knowing the session holds `name`, then unlocks it. */
  private async holding<T>(
    session: Session,
    name: string,
    space: number,
    key: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const inner: Session = { ...session, held: new Set([...session.held, name]) };
    try {
      return await this.session.run(inner, work);
    } finally {
      await session.client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [space, key]).catch(() => {
        // The session is gone or unsure: closing it drops whatever lock it still held.
        session.state.broken = true;
      });
    }
  }
}
