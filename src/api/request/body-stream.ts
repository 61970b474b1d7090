import { RequestTimeoutError } from "../../core/errors.js";
import { type BodyPace, watchPace } from "../../shared/body-pace.js";

/** What watches a body as it arrives. */
export interface BodyWatch {
  /** Called with each chunk's size and the total so far; throws to refuse the body. */
  count(bytes: number, total: number): void;
  pace: BodyPace;
}

/**
 * The same request, its body passed through `watch.count` chunk by chunk (which may throw to
 * refuse it), and cut off with 408 REQUEST_TIMEOUT when it arrives slower than `watch.pace` (see
 * `watchPace`): a client that trickles its body cannot hold a connection, and what it sent of the
 * budget, for the whole request timeout. `stop` ends the watch once the request is answered;
 * nothing is counted after it.
 */
export function watchedRequest(request: Request, watch: BodyWatch): { request: Request; stop: () => void } {
  const reader = request.body!.getReader();
  let total = 0;
  let stopped = false;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const pace = watchPace(watch.pace, () => {
    stop();
    controller.error(
      new RequestTimeoutError(
        `request body arrived slower than ${watch.pace.minBytesPerSecond} bytes a second`,
      ),
    );
  });
  const stop = () => {
    stopped = true;
    pace.stop();
  };
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    async pull(c) {
      pace.waiting();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        stop();
        throw error;
      }
      const { done, value } = chunk;
      if (stopped) return;
      pace.arrived(done ? 0 : value.byteLength);
      // Judged too slow as the chunk arrived (the window's timer had no turn): errored already.
      if (stopped) return;
      if (done) {
        stop();
        return c.close();
      }
      total += value.byteLength;
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
