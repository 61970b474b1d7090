import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { join } from "node:path";
import { deployFiles, prepareBody, type ApiProject, createProject } from "../lib/api-deploy.js";
import { edgeLatenciesDuring } from "../lib/edge-poller.js";
import { STORAGE_LIMITS_OFF, startServerProcess, type ServerProcess } from "../lib/server-process.js";
import { currentRss, sleep } from "../lib/proc.js";
import { percentile } from "../lib/stats.js";
import type { EdgeDuringPrepare, HeldBodies } from "../lib/types.js";

const MIB = 1024 * 1024;
/** Edge connections asking for a page while a prepare runs. */
const EDGE_CONNECTIONS = 8;

export interface AbuseOptions {
  workDir: string;
  /** Entries of the large prepare (the 100,000). */
  entries: number;
  rounds: number;
  heldBodies: number;
  log: (line: string) => void;
}

/**
 * Issue 14's measurements, on the server with its rate limits as shipped: the edge's latency while a
 * prepare of `entries` runs (a typical manifest, and one of 25 MiB assets that needs a bucket
 * each), and the server's memory while bodies of 32 MiB are held open, without a token and with one.
 */
export async function runAbuse(options: AbuseOptions): Promise<{
  edgeDuringPrepare: EdgeDuringPrepare[];
  heldBodies: HeldBodies[];
}> {
  // Rate limits as shipped; the storage quotas off, or they would refuse the 100,000-entry prepares
  // (gigabytes declared, terabytes for the 25 MiB ones) before any work, and there would be nothing
  // to measure.
  const server = await startServerProcess({
    dataDir: join(options.workDir, "abuse-data"),
    env: STORAGE_LIMITS_OFF,
  });
  try {
    const { hostname } = await deployFiles(
      server.urls.api,
      new Map([["/index.html", Buffer.from(`<h1>${"still here ".repeat(200)}</h1>`)]]),
    );
    const edgeDuringPrepare: EdgeDuringPrepare[] = [];
    const edge = (during: () => Promise<void>) =>
      edgeLatenciesDuring(server.urls.edge, hostname, EDGE_CONNECTIONS, during);
    const idle = await edge(() => sleep(2000));
    edgeDuringPrepare.push({ name: "no prepare (baseline, 2 s)", ...latencyFigures(idle), prepareMs: [] });
    for (const [name, size] of [
      [`${options.entries.toLocaleString("en-US")} entries (sizes up to 60 KB)`, undefined],
      [`${options.entries.toLocaleString("en-US")} entries of 25 MiB (a bucket each)`, 25 * MIB],
    ] as const) {
      const waits: number[] = [];
      const prepareMs: number[] = [];
      for (let round = 0; round < options.rounds; round++) {
        // A fresh project each round: the prepare limits stay as shipped.
        const project = await createProject(server.urls.api);
        const body = largePrepare(project, options.entries, size);
        const during = await edge(async () => {
          const started = performance.now();
          const status = await timedPrepare(server.urls.api, project, body);
          prepareMs.push(performance.now() - started);
          if (status !== 200) throw new Error(`the large prepare answered ${status}`);
        });
        waits.push(...during);
        options.log(
          `api: edge during a prepare of ${name}, round ${round + 1}/${options.rounds}: ` +
            `${during.length} requests, p99 ${percentile(during, 0.99).toFixed(1)} ms, ` +
            `max ${Math.max(...during).toFixed(1)} ms, prepare ${prepareMs.at(-1)!.toFixed(0)} ms`,
        );
      }
      edgeDuringPrepare.push({ name, ...latencyFigures(waits), prepareMs });
    }
    const heldBodies: HeldBodies[] = [];
    for (const withToken of [false, true]) {
      // A fresh server each time: what the prepares left for the collector must not count.
      const fresh = await startServerProcess({ dataDir: join(options.workDir, `held-${withToken}`) });
      try {
        const project = await createProject(fresh.urls.api);
        heldBodies.push(await holdBodies(fresh, project, options.heldBodies, withToken));
      } finally {
        await fresh.stop();
      }
      const last = heldBodies.at(-1)!;
      options.log(
        `api: ${options.heldBodies} held 32 MiB bodies ${withToken ? "with" : "without"} a token: RSS ` +
          `${(last.rssBeforeBytes / 1e6).toFixed(0)} → ${(last.rssAfterBytes / 1e6).toFixed(0)} MB, answers ${JSON.stringify(last.answers)}`,
      );
    }
    return { edgeDuringPrepare, heldBodies };
  } finally {
    await server.stop();
  }
}

/** A prepare body of `count` random hashes, each `size` bytes, or sizes up to 60 KB. */
function largePrepare(project: ApiProject, count: number, size: number | undefined): string {
  return prepareBody(
    project,
    Array.from({ length: count }, (_, i) => ({
      path: `/assets/${Math.floor(i / 100)}/chunk-${i}.js`,
      hash: randomBytes(16).toString("hex"),
      size: size ?? 100 + ((i * 7919) % 60_000),
    })),
  );
}

async function timedPrepare(apiUrl: string, project: ApiProject, body: string): Promise<number> {
  const response = await fetch(`${apiUrl}/projects/${project.slug}/prepare`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${project.token}` },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

function latencyFigures(waits: readonly number[]) {
  return {
    requests: waits.length,
    p50Ms: percentile(waits, 0.5),
    p99Ms: percentile(waits, 0.99),
    maxMs: Math.max(...waits),
  };
}

/**
 * Opens `count` connections to prepare, each announcing a 32 MiB body and sending all of it but
 * the last byte, then holds them; measures the server's resident memory before and once every
 * connection has sent what it will (or was closed), and the peak between.
 */
async function holdBodies(
  server: ServerProcess,
  project: ApiProject,
  count: number,
  withToken: boolean,
): Promise<HeldBodies> {
  const url = new URL(server.urls.api);
  const body = Buffer.alloc(32 * MIB, 0x20);
  const rssBefore = currentRss(server.pid);
  server.resetPeak();
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ received: Buffer; close: () => void }>((resolve) => {
          const socket = connect({ host: url.hostname, port: Number(url.port) });
          const chunks: Buffer[] = [];
          let settled = false;
          const settle = () => {
            if (settled) return;
            settled = true;
            resolve({ received: Buffer.concat(chunks), close: () => socket.destroy() });
          };
          socket.on("data", (chunk: Buffer) => chunks.push(chunk));
          socket.on("error", settle);
          socket.on("close", settle);
          socket.on("connect", () => {
            const auth = withToken ? `Authorization: Bearer ${project.token}\r\n` : "";
            socket.write(
              `POST /projects/${project.slug}/prepare HTTP/1.1\r\nHost: x\r\n${auth}` +
                `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
            );
            socket.write(body.subarray(0, body.length - 1), () => setTimeout(settle, 1000));
          });
        }),
    ),
  );
  const rssAfter = currentRss(server.pid);
  const peak = server.peakRss();
  const answers: Record<string, number> = {};
  for (const { received, close } of sockets) {
    close();
    const status = /^HTTP\/1\.1 (\d{3})/.exec(received.toString("latin1"))?.[1] ?? "none (held)";
    answers[status] = (answers[status] ?? 0) + 1;
  }
  return {
    name: `${count} bodies of 32 MiB held open ${withToken ? "with a valid token" : "without a token"}`,
    withToken,
    rssBeforeBytes: rssBefore,
    rssAfterBytes: rssAfter,
    peakRssBytes: peak,
    answers,
  };
}
