import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PrepareBodyAnswer, PrepareBodyRequest } from "./prepare-body-worker.js";

/**
 * One long-lived worker thread that parses large prepare bodies, one at a time in arrival order.
 * How many wait is bounded already: each is a body held within the body budget (body-budget.ts).
 */
export class PrepareBodyPool {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (answer: PrepareBodyAnswer) => void; reject: (error: Error) => void }
  >();

  /** Parses and checks one body in the worker; its bytes are moved there (detached here). */
  parse(request: Omit<PrepareBodyRequest, "id">): Promise<PrepareBodyAnswer> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...request, id } satisfies PrepareBodyRequest, [request.bytes]);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerFile());
    // Idle, it keeps no process alive.
    worker.unref();
    worker.on("message", (answer: PrepareBodyAnswer) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      waiter?.resolve(answer);
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the prepare body worker exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}

/**
 * The worker's compiled file. Run from the sources (the tests, through vitest), this module is
 * TypeScript, which a worker cannot load: it takes the built copy in dist/ (the tests build it first).
 */
function workerFile(): URL {
  const sibling = new URL("./prepare-body-worker.js", import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  return new URL("../../../dist/api/request/prepare-body-worker.js", import.meta.url);
}

/** The pool the service's prepare route uses. */
export const prepareBodyPool = new PrepareBodyPool();
