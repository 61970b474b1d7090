import type { Logger } from "pino";

/** What a summary says of the first failure of its interval: no stack, which an outage repeats for every request. */
export interface FailureSummary {
  /** The error's code (`OBJECT_STORE_UNAVAILABLE`), or its name. */
  code: string;
  message: string;
  /** The messages of its causes, outermost first (which request failed, and how). */
  cause?: string;
  /** The first system error code among its causes (`ECONNREFUSED`, `ETIMEDOUT`). */
  causeCode?: string;
}

interface Counted {
  failures: number;
  first: FailureSummary;
}

/** Causes followed at most, against a cycle. */
const MAX_CAUSES = 8;

/**
 * Logs an outage (the object store or the database down) as one line per kind of failure and
 * interval, with how many requests it failed and what the first one met, instead of an error and
 * its stack for every request: a store that is down for 10 s under load failed 1,199 requests,
 * which told the operator nothing more than one line does. The interval starts at the first
 * failure; a quiet interval logs nothing.
 */
export class OutageLog {
  private readonly counts = new Map<string, Counted>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
  ) {}

  /** Counts a request that failed for the outage `code` names. */
  record(code: string, error: unknown): void {
    const counted = this.counts.get(code);
    if (counted) counted.failures++;
    else this.counts.set(code, { failures: 1, first: summarize(code, error) });
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref();
    }
  }

  /** Logs what was counted since the last summary, now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const seconds = this.intervalMs / 1000;
    for (const [code, { failures, first }] of this.counts) {
      this.logger.error(
        { outage: code, failures, intervalSeconds: seconds, first },
        `${code}: ${failures} request(s) failed in ${seconds} s`,
      );
    }
    this.counts.clear();
  }
}

/** The error's code and message and its causes', without a stack. */
function summarize(code: string, error: unknown): FailureSummary {
  const summary: FailureSummary = { code, message: error instanceof Error ? error.message : String(error) };
  const causes: string[] = [];
  let cause = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; cause !== undefined && depth < MAX_CAUSES; depth++) {
    causes.push(cause instanceof Error ? cause.message : String(cause));
    const errno = (cause as { code?: unknown } | null)?.code;
    if (summary.causeCode === undefined && typeof errno === "string") summary.causeCode = errno;
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  if (causes.length > 0) summary.cause = causes.join(": ");
  return summary;
}
