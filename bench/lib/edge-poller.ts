import { Agent, request } from "node:http";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

interface PollerData {
  edgeUrl: string;
  host: string;
  connections: number;
}

/**
 * The edge's latencies (ms) while `during` runs: `connections` keep-alive connections each ask for
 * `/` of `host`, one request after the other, from a worker thread (so that whatever `during` does
 * on this thread cannot delay them); only requests sent while `during` runs count.
 */
export async function edgeLatenciesDuring(
  edgeUrl: string,
  host: string,
  connections: number,
  during: () => Promise<void>,
): Promise<number[]> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { edgeUrl, host, connections } satisfies PollerData,
  });
  // Every message the worker sends, by kind, kept until asked for (none is lost to timing).
  const inbox = new Map<string, Deferred>();
  const box = (kind: string) => {
    if (!inbox.has(kind)) inbox.set(kind, deferred());
    return inbox.get(kind)!;
  };
  worker.on("message", (value: { kind: string; data?: unknown; error?: string }) => {
    if (value.error) box(value.kind).reject(new Error(value.error));
    else box(value.kind).resolve(value.data);
  });
  worker.once("error", (error) => {
    box("ready").reject(error);
    box("waits").reject(error);
  });
  try {
    await box("ready").promise;
    worker.postMessage("count");
    await during();
    worker.postMessage("stop");
    return (await box("waits").promise) as number[];
  } finally {
    await worker.terminate();
  }
}

interface Deferred {
  promise: Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: (value: unknown) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<unknown>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  // Rejections are read when asked for; one never asked for must not end the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { edgeUrl, host, connections } = workerData as PollerData;
  const url = new URL(edgeUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let counting = false;
  let running = true;
  const waits: number[] = [];
  port.on("message", (value: string) => {
    if (value === "count") counting = true;
    if (value === "stop") running = false;
  });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now();
      const counted = counting;
      const req = request(
        { host: url.hostname, port: url.port, path: "/", headers: { host }, agent },
        (res) => {
          res.resume();
          res.on("end", () => {
            if (res.statusCode !== 200) return reject(new Error(`the edge answered ${res.statusCode}`));
            if (counted && running) waits.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
  let warm = 0;
  void Promise.all(
    Array.from({ length: connections }, async () => {
      while (running) {
        await get();
        if (++warm === connections) port.postMessage({ kind: "ready" });
      }
    }),
  ).then(
    () => port.postMessage({ kind: "waits", data: waits }),
    (error: unknown) => port.postMessage({ kind: "waits", error: String(error) }),
  );
}
