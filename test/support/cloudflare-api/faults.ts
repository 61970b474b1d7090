/** A failure the stand-in answers instead of a chosen call, a number of times. */
export interface Fault {
  method: string;
  /** Matched against the path after `/client/v4`. */
  path: RegExp;
  status: 200 | 400 | 403 | 404 | 409 | 429 | 500 | 502 | 503;
  /** Cloudflare's error code in the envelope. */
  code: number;
  message: string;
  /** Sent instead of Cloudflare's envelope, as JSON's media type (a garbled answer). */
  body?: string;
  /** Sent as `Retry-After`: seconds, or an HTTP date. */
  retryAfter?: number | string;
  /** How many matching calls fail; Infinity for all. */
  times: number;
}

/** Cloudflare's 429 on the token check (the first call of every client), with `Retry-After`. */
export function tokenCheckRateLimited(
  retryAfter: number | string,
  times = 1,
): Omit<Fault, "times"> & { times: number } {
  return {
    method: "GET",
    path: /\/user\/tokens\/verify$/,
    status: 429,
    code: 10429,
    message: "rate limited",
    retryAfter,
    times,
  };
}

/** The faults the tests injected, and the calls that met one. */
export class Faults {
  private readonly pending: Fault[] = [];
  /** Every call answered with a fault, as `METHOD path`. */
  readonly hits: string[] = [];

  /** Makes the next `times` calls matching `method` and `path` fail as described. */
  add(fault: Omit<Fault, "times"> & { times?: number }): void {
    this.pending.push({ times: 1, ...fault });
  }

  clear(): void {
    this.pending.length = 0;
  }

  /** The fault for this call, if one is due (and counts it). */
  take(method: string, path: string): Fault | undefined {
    const fault = this.pending.find((f) => f.method === method && f.path.test(path) && f.times > 0);
    if (fault === undefined) return undefined;
    fault.times -= 1;
    this.hits.push(`${method} ${path}`);
    return fault;
  }
}
