import { Worker } from "node:worker_threads";
import { workerScript } from "../../shared/worker-script.js";
import type { PrepareBodyAnswer, PrepareBodyRequest } from "./prepare-body-worker.js";

/** How the pool's worker is sized and how long it outlives its last body. */
export interface PrepareBodyPoolOptions {
  /**
   * How long an idle worker is kept for the next large body, in milliseconds. Its heap after a
   * 50,000-entry manifest stays at some 45 MB until it ends: ended, the server's resting memory
   * is 180 MB instead of 235 (BENCHMARKS.md, issue 32's last pass). A new worker starts in ~30 ms.
   */
  idleMs?: number;
  /**
   * The worker's young generation, in MiB. JSON.parse's objects all survive until the manifest is
   * packed, so a large young generation only adds room: V8's default (up to 48 MiB) took a
   * 50,000-entry parse to 73 MB of heap, 4 MiB to 30 MB, in the same time (100,000 entries, ~100 ms).
   */
  youngGenerationMb?: number;
}

/**
 * One worker thread that parses large prepare bodies, one at a time in arrival order, started on
 * demand and ended when idle. How many wait is bounded already: each is a body held within the
 * body budget (body-budget.ts).
 */
export class PrepareBodyPool {
  private worker: Worker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (answer: PrepareBodyAnswer) => void; reject: (error: Error) => void }
  >();
  private readonly idleMs: number;
  private readonly youngGenerationMb: number;

  constructor(options: PrepareBodyPoolOptions = {}) {
    this.idleMs = options.idleMs ?? 2_000;
    this.youngGenerationMb = options.youngGenerationMb ?? 4;
  }

  /** The running worker's thread id, or undefined when none runs. */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  /** Parses and checks one body in the worker; its bytes are moved there (detached here). */
  parse(request: Omit<PrepareBodyRequest, "id">): Promise<PrepareBodyAnswer> {
    clearTimeout(this.idleTimer);
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id } satisfies PrepareBodyRequest, [request.bytes]);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // Relative to this module: the worker script is compiled into this folder.
    const worker = new Worker(workerScript("prepare-body-worker.js", import.meta.url), {
      resourceLimits: { maxYoungGenerationSizeMb: this.youngGenerationMb },
    });
    // Idle, it keeps no process alive.
    worker.unref();
    worker.on("message", (answer: PrepareBodyAnswer) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      waiter?.resolve(answer);
      if (this.waiting.size === 0) this.endWhenIdle(worker);
    });
    const fail = (error: Error) => {
      // A worker ended when idle was forgotten first: the bodies waiting now are a newer one's.
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the prepare body worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  /** Ends the worker after `idleMs` with nothing to parse; a body arriving first cancels it. */
  private endWhenIdle(worker: Worker): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.waiting.size > 0) return;
      // Forgotten first: a body arriving while it ends starts a new worker.
      this.worker = undefined;
      void worker.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/** The pool the service's prepare route uses. */
export const prepareBodyPool = new PrepareBodyPool();
