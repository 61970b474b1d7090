import type { Context, MiddlewareHandler } from "hono";
import { PayloadTooLargeError, RateLimitedError, ServerBusyError } from "../../core/errors.js";
import type { BodyPace } from "../../shared/body-pace.js";
import { watchedRequest } from "./body-stream.js";

/** How many body bytes the API may hold in flight at once: in all, and for one client address. */
export interface BodyBudgetLimits {
  /** All requests together; 0: no limit. */
  maxBytes: number;
  /** One client address; 0: no limit. */
  maxBytesPerAddress: number;
}

/** Seconds a refused client is told to wait: bodies in flight are read within seconds. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The request body bytes the API has received and not yet answered, in all and per client address.
 * Only bytes that arrived count: a declared `Content-Length` reserves nothing, so a stranger who
 * announces 32 MiB and sends nothing holds none of it. A request whose bytes would go over its
 * address's share is refused with 429 RATE_LIMITED, over the total with 503 SERVER_BUSY; a request
 * alone (nothing else in flight for its address, or at all) is never refused, so a body up to
 * MAX_BODY_BYTES can always be sent alone.
 */
export class BodyBudget {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly limits: BodyBudgetLimits,
    /** Told the bytes in flight whenever they change (a gauge of the metrics). */
    private readonly report: (bytes: number) => void = () => {},
  ) {}

  /**
   * Takes `bytes` more for a request of `address` that already holds `held`, or throws without
   * taking anything. What the request itself holds does not count against it.
   */
  take(address: string, bytes: number, held = 0): void {
    this.judge(address, bytes, held);
    this.total += bytes;
    this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + bytes);
    this.report(this.total);
  }

  /** Throws what `take` would for a new request of `address` that brings `bytes`; takes nothing. */
  judge(address: string, bytes: number, held = 0): void {
    const mine = this.byAddress.get(address) ?? 0;
    const { maxBytes, maxBytesPerAddress } = this.limits;
    if (maxBytesPerAddress > 0 && mine - held > 0 && mine + bytes > maxBytesPerAddress) {
      throw new RateLimitedError(RETRY_AFTER_SECONDS);
    }
    if (maxBytes > 0 && this.total - held > 0 && this.total + bytes > maxBytes) {
      throw new ServerBusyError(RETRY_AFTER_SECONDS);
    }
  }

  /** Gives back what `take` took for `address`. */
  give(address: string, bytes: number): void {
    if (bytes === 0) return;
    this.total -= bytes;
    const left = (this.byAddress.get(address) ?? 0) - bytes;
    if (left > 0) this.byAddress.set(address, left);
    else this.byAddress.delete(address);
    this.report(this.total);
  }

  /** Bytes in flight, in all (for tests and logs). */
  get inFlight(): number {
    return this.total;
  }
}

/**
 * Lets a request's body be read within MAX_BODY_BYTES, the budget and the minimum pace. From the
 * headers alone: a declared `Content-Length` over the limit is 413, and a request whose address (or
 * the API) already holds what it may, with what it declares, is 429 (503); nothing is taken. Then
 * every body is counted as it arrives: its bytes are taken from the budget chunk by chunk (413, 429,
 * 503 once over), and a body slower than `pace` is cut off with 408. What was taken is given back
 * when the request is answered, or when its client goes away.
 */
export function boundedBody(deps: {
  maxBodyBytes: number;
  budget: BodyBudget;
  clientAddress: (c: Context) => string;
  /** The slowest a body may arrive; without it, no minimum. */
  pace?: BodyPace;
}): MiddlewareHandler {
  const tooLarge = () => new PayloadTooLargeError(`request body exceeds ${deps.maxBodyBytes} bytes`);
  const pace = deps.pace ?? { minBytesPerSecond: 0, windowMs: 1000 };
  return async (c, next) => {
    const address = deps.clientAddress(c);
    const declared = declaredLength(c);
    if (declared !== undefined && declared > deps.maxBodyBytes) throw tooLarge();
    if (!c.req.raw.body) return next();
    deps.budget.judge(address, declared ?? 1);
    let held = 0;
    const watched = watchedRequest(c.req.raw, {
      pace,
      count: (bytes, total) => {
        if (total > deps.maxBodyBytes) throw tooLarge();
        deps.budget.take(address, bytes, held);
        held += bytes;
      },
    });
    c.req.raw = watched.request;
    try {
      await next();
    } finally {
      watched.stop();
      deps.budget.give(address, held);
    }
  };
}

/** The `Content-Length` of a request without `Transfer-Encoding`, or undefined. */
function declaredLength(c: Context): number | undefined {
  const header = c.req.header("content-length");
  if (header === undefined || c.req.header("transfer-encoding") !== undefined) return undefined;
  // node:http has already refused a malformed Content-Length.
  return Number(header);
}
