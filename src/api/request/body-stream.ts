import { RequestTimeoutError } from "../../core/errors.js";

/** The slowest a request body may arrive: at least `minBytesPerSecond` in every `windowMs`. */
export interface BodyPace {
  /** 0: no minimum. */
  minBytesPerSecond: number;
  windowMs: number;
}

/** What watches a body as it arrives. */
export interface BodyWatch {
  /** Called with each chunk's size and the total so far; throws to refuse the body. */
  count(bytes: number, total: number): void;
  pace: BodyPace;
}

/**
 * The same request, its body passed through `watch.count` chunk by chunk (which may throw to
 * refuse it), and cut off with 408 REQUEST_TIMEOUT when a window of `watch.pace` passes with fewer
 * bytes than its minimum: a client that trickles its body cannot hold a connection, and what it
 * sent of the budget, for the whole request timeout. `stop` ends the watch once the request is
 * answered; nothing is counted after it.
 */
export function watchedRequest(request: Request, watch: BodyWatch): { request: Request; stop: () => void } {
  const reader = request.body!.getReader();
  const { minBytesPerSecond, windowMs } = watch.pace;
  const minPerWindow = (minBytesPerSecond * windowMs) / 1000;
  let total = 0;
  let sinceTick = 0;
  let stopped = false;
  let lastTick = performance.now();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const timer =
    minPerWindow > 0
      ? setInterval(() => {
          // Judged after the poll phase, so bytes already on the socket are counted first.
          setImmediate(() => {
            if (stopped) return;
            const now = performance.now();
            // A tick a whole window late means this process stalled, not that the client was slow.
            const late = now - lastTick > 2 * windowMs;
            lastTick = now;
            if (!late && sinceTick < minPerWindow) {
              stop();
              controller.error(
                new RequestTimeoutError(
                  `request body arrived slower than ${minBytesPerSecond} bytes a second`,
                ),
              );
            }
            sinceTick = 0;
          });
        }, windowMs)
      : undefined;
  timer?.unref();
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    async pull(c) {
      const { done, value } = await reader.read();
      if (stopped) return;
      if (done) {
        stop();
        return c.close();
      }
      total += value.byteLength;
      sinceTick += value.byteLength;
      try {
        watch.count(value.byteLength, total);
      } catch (error) {
        stop();
        throw error;
      }
      c.enqueue(value);
    },
    cancel: (reason) => {
      stop();
      return reader.cancel(reason);
    },
  });
  return { request: new Request(request, { body, duplex: "half" } as RequestInit), stop };
}
