import type { Context, MiddlewareHandler } from "hono";
import { PayloadTooLargeError, RateLimitedError, ServerBusyError } from "../../core/errors.js";

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
 * The request body bytes the API is reading (or has been promised by a `Content-Length`), in all
 * and per client address. A request that would go over its address's share is refused with 429
 * RATE_LIMITED, one that would go over the total with 503 SERVER_BUSY; a request is always let in
 * when nothing else is in flight for its address (or at all), so a body up to MAX_BODY_BYTES can
 * always be sent alone.
 */
export class BodyBudget {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: BodyBudgetLimits) {}

  /** Takes `bytes` for `address`, or throws without taking anything. */
  take(address: string, bytes: number): void {
    const mine = this.byAddress.get(address) ?? 0;
    const { maxBytes, maxBytesPerAddress } = this.limits;
    if (maxBytesPerAddress > 0 && mine > 0 && mine + bytes > maxBytesPerAddress) {
      throw new RateLimitedError(RETRY_AFTER_SECONDS);
    }
    if (maxBytes > 0 && this.total > 0 && this.total + bytes > maxBytes) {
      throw new ServerBusyError(RETRY_AFTER_SECONDS);
    }
    this.total += bytes;
    this.byAddress.set(address, mine + bytes);
  }

  /** Gives back what `take` took for `address`. */
  give(address: string, bytes: number): void {
    if (bytes === 0) return;
    this.total -= bytes;
    const left = (this.byAddress.get(address) ?? 0) - bytes;
    if (left > 0) this.byAddress.set(address, left);
    else this.byAddress.delete(address);
  }

  /** Bytes in flight, in all (for tests and logs). */
  get inFlight(): number {
    return this.total;
  }
}

/**
 * Lets a request's body be read within MAX_BODY_BYTES and the budget. A declared `Content-Length`
 * is judged and taken from the budget before any byte is read (413, 429, 503); a body without one
 * (chunked) is counted as it arrives, and its read fails with the same errors once over. What was
 * taken is given back when the request is answered, or when its client goes away.
 */
export function boundedBody(deps: {
  maxBodyBytes: number;
  budget: BodyBudget;
  clientAddress: (c: Context) => string;
}): MiddlewareHandler {
  const tooLarge = () => new PayloadTooLargeError(`request body exceeds ${deps.maxBodyBytes} bytes`);
  return async (c, next) => {
    const address = deps.clientAddress(c);
    let held = 0;
    const take = (bytes: number) => {
      deps.budget.take(address, bytes);
      held += bytes;
    };
    const declared = declaredLength(c);
    if (declared !== undefined) {
      if (declared > deps.maxBodyBytes) throw tooLarge();
      take(declared);
    } else if (c.req.raw.body) {
      c.req.raw = countedRequest(c.req.raw, (bytes, total) => {
        if (total > deps.maxBodyBytes) throw tooLarge();
        take(bytes);
      });
    }
    try {
      await next();
    } finally {
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

/** The same request, its body passed through `count` chunk by chunk (which may throw to refuse it). */
function countedRequest(request: Request, count: (bytes: number, total: number) => void): Request {
  const reader = request.body!.getReader();
  let total = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      total += value.byteLength;
      count(value.byteLength, total);
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Request(request, { body, duplex: "half" } as RequestInit);
}
