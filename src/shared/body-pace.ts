/** The slowest a request body may arrive: at least `minBytesPerSecond` in every `windowMs`. */
export interface BodyPace {
  /** 0: no minimum. */
  minBytesPerSecond: number;
  windowMs: number;
}

/** What a reader tells a pace watch: when it waits for the client, and what arrived. */
export interface PaceWatch {
  /** The reader asks the client for more and waits. */
  waiting(): void;
  /** A chunk of `bytes` arrived (0: the body ended or the read failed); the wait is over. */
  arrived(bytes: number): void;
  /** Ends the watch: `tooSlow` is never called after it. */
  stop(): void;
}

/**
 * Watches a body arrive and calls `tooSlow` once when a window of `pace.windowMs` spent waiting for
 * the client brought fewer bytes than the pace asks. Only time spent waiting counts: while the
 * server works on what arrived (a query, a write) it reads nothing, and the client is not to blame.
 * Nor is it when this process stalled (a timer a whole window late).
 */
export function watchPace(pace: BodyPace, tooSlow: () => void): PaceWatch {
  const { minBytesPerSecond, windowMs } = pace;
  const minPerWindow = (minBytesPerSecond * windowMs) / 1000;
  let waitedMs = 0;
  let bytes = 0;
  // When the current wait began; undefined while the server holds a chunk.
  let since: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  // Which wait a timer belongs to: one that fired just as a chunk arrived judges nothing.
  let wait = 0;
  let stopped = minPerWindow <= 0;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  const judge = () => {
    if (bytes < minPerWindow) {
      stop();
      tooSlow();
      return;
    }
    waitedMs = 0;
    bytes = 0;
  };
  const arm = (dueMs: number) => {
    const armedAt = performance.now();
    const mine = wait;
    timer = setTimeout(() => {
      // Judged after the poll phase, so bytes already on the socket are counted first.
      setImmediate(() => {
        if (stopped || since === undefined || mine !== wait) return;
        const now = performance.now();
        if (now - armedAt > dueMs + windowMs) {
          // This process stalled, not the client: the window starts again.
          waitedMs = 0;
          bytes = 0;
        } else {
          waitedMs += now - since;
          judge();
        }
        since = now;
        if (!stopped) arm(windowMs - waitedMs);
      });
    }, dueMs);
    timer.unref();
  };

  return {
    waiting() {
      if (stopped || since !== undefined) return;
      wait += 1;
      since = performance.now();
      arm(Math.max(0, windowMs - waitedMs));
    },
    arrived(count) {
      if (stopped) return;
      clearTimeout(timer);
      if (since !== undefined) waitedMs += performance.now() - since;
      since = undefined;
      bytes += count;
      if (waitedMs >= windowMs) judge();
    },
    stop,
  };
}

/**
 * Passes a body through, failing with `tooSlow()` when it arrives slower than `pace` (see
 * `watchPace`). A body cut off is not read further nor destroyed, so the answer can still be
 * written on its connection; a reader that stops early otherwise ends it as `for await` would.
 */
export async function* pacedBody(
  body: AsyncIterable<Uint8Array>,
  pace: BodyPace,
  tooSlow: () => Error,
): AsyncIterable<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]();
  let slowError: Error | undefined;
  // The wait in progress, cut short when the watch calls the body too slow. One promise a read,
  // never a race against one promise that lives as long as the body: each race would leave a
  // reaction on it holding that read's chunk, so a bucket's every byte stayed reachable to its end.
  let cutOff: ((error: Error) => void) | undefined;
  const watch = watchPace(pace, () => {
    // Set apart from the call: `cutOff?.(…)` would not evaluate its argument without a wait.
    slowError = tooSlow();
    cutOff?.(slowError);
  });
  let finished = false;
  try {
    for (;;) {
      watch.waiting();
      const next = await new Promise<IteratorResult<Uint8Array>>((resolve, reject) => {
        cutOff = reject;
        chunks.next().then(resolve, reject);
      });
      cutOff = undefined;
      watch.arrived(next.done ? 0 : next.value.byteLength);
      // The window may be judged here, as the chunk arrives (its timer had no turn yet): with no
      // wait to cut short, the error is thrown now, or the watch, stopped, never calls again.
      if (slowError !== undefined) throw slowError;
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    watch.stop();
    // Cut off: the connection must stay open for the answer (ending the iterator destroys it).
    if (!finished && slowError === undefined) await chunks.return?.();
  }
}
