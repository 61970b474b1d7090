import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deployFiles } from "../lib/api-deploy.js";
import { httpGet } from "../lib/http-get.js";
import { startNginx } from "../lib/nginx.js";
import { cpuSeconds, freePort } from "../lib/proc.js";
import { startServerProcess, type ServerProcess } from "../lib/server-process.js";
import { startNodeServer } from "../lib/node-servers.js";
import { ratioSummary, rotate, summarize } from "../lib/stats.js";
import type { EdgeFileResult, EdgeResult, ServingCell } from "../lib/types.js";
import { runWrk, type WrkResult } from "../lib/wrk.js";
import { servedFiles, type ServedFile } from "./edge-files.js";

export interface EdgeOptions {
  workDir: string;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  log: (line: string) => void;
}

interface Contender {
  name: string;
  url: string;
  /** The server's process (nginx: its master, whose worker is counted with it). */
  pid: number;
  stop(): Promise<void>;
}

/** A wrk run and the CPU time the server spent answering it. */
interface ServedRun extends WrkResult {
  cpuUsPerRequest: number;
}

/**
 * Benchmark 1: the edge, nginx and sirv serve the same three files over keep-alive (wrk, 2 threads,
 * 50 connections, no Accept-Encoding, so every one answers with the identity body), and so does a
 * bare node:http server answering from memory: the ceiling of any Node edge here. Contenders take
 * turns within each round and the order rotates from round to round.
 */
export async function runEdgeServing(options: EdgeOptions): Promise<EdgeResult> {
  const { workDir, log } = options;
  const files = servedFiles();
  const siteDir = join(workDir, "site");
  mkdirSync(siteDir, { recursive: true });
  for (const file of files) writeFileSync(join(siteDir, file.path), file.bytes);

  const contenders: Contender[] = [];
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({ dataDir: join(workDir, "server-data"), env: { LOG_LEVEL: "warn" } });
    const { hostname } = await deployFiles(
      server.urls.api,
      new Map(files.map((file) => [file.path, file.bytes])),
    );
    const running = server;
    contenders.push({ name: "edge", url: server.urls.edge, pid: server.pid, stop: () => running.stop() });
    const nginx = await startNginx(siteDir, await freePort(), join(workDir, "nginx"));
    contenders.push({ name: "nginx", url: nginx.url, pid: nginx.pid, stop: () => nginx.stop() });
    const sirv = await startNodeServer("sirv-server", siteDir, await freePort(), join(workDir, "sirv.log"));
    contenders.push({ name: "sirv", url: sirv.url, pid: sirv.pid, stop: () => sirv.stop() });
    const bare = await startNodeServer("bare-server", siteDir, await freePort(), join(workDir, "bare.log"));
    contenders.push({ name: "bare node", url: bare.url, pid: bare.pid, stop: () => bare.stop() });
    log(
      `edge: site ${hostname}; edge ${server.urls.edge}, nginx ${nginx.url}, sirv ${sirv.url}, bare node ${bare.url}`,
    );

    const headerBytes = new Map<string, number>();
    for (const file of files) {
      for (const contender of contenders) {
        headerBytes.set(`${file.path} ${contender.name}`, await checkServes(contender, hostname, file));
      }
    }
    // The server's CPU time per request is a cost that a busy machine disturbs far less than req/s.
    const wrk = async (contender: Contender, file: ServedFile, seconds: number): Promise<ServedRun> => {
      const before = cpuSeconds(contender.pid);
      const result = await runWrk({ url: contender.url + file.url, seconds, headers: { Host: hostname } });
      const spent = cpuSeconds(contender.pid) - before;
      return { ...result, cpuUsPerRequest: (spent * 1e6) / Math.max(1, result.requests) };
    };
    for (const file of files)
      for (const contender of contenders) await wrk(contender, file, options.warmupSeconds);

    const runs = new Map<string, ServedRun[]>();
    for (let round = 0; round < options.rounds; round++) {
      for (const file of files) {
        for (const contender of rotate(contenders, round)) {
          const result = await wrk(contender, file, options.seconds);
          const key = `${file.path} ${contender.name}`;
          runs.set(key, [...(runs.get(key) ?? []), result]);
          log(
            `edge: round ${round + 1}/${options.rounds} ${file.label} ${contender.name}: ${Math.round(result.rps)} req/s, p99 ${result.p99Ms.toFixed(2)} ms`,
          );
        }
      }
    }
    return {
      rounds: options.rounds,
      seconds: options.seconds,
      files: files.map((file) => fileResult(file, contenders, runs, headerBytes)),
    };
  } finally {
    for (const contender of contenders) await contender.stop();
    if (server && !contenders.some((contender) => contender.name === "edge")) await server.stop();
  }
}

function fileResult(
  file: ServedFile,
  contenders: readonly Contender[],
  runs: ReadonlyMap<string, ServedRun[]>,
  headerBytes: ReadonlyMap<string, number>,
): EdgeFileResult {
  const of = (name: string): ServedRun[] => runs.get(`${file.path} ${name}`) ?? [];
  const cells: ServingCell[] = contenders.map(({ name }) => ({
    contender: name,
    rps: summarize(of(name).map((run) => run.rps)),
    p99Ms: summarize(of(name).map((run) => run.p99Ms)),
    cpuUsPerRequest: summarize(of(name).map((run) => run.cpuUsPerRequest)),
    errors: of(name).reduce((sum, run) => sum + run.errors, 0),
    headerBytes: headerBytes.get(`${file.path} ${name}`) ?? 0,
  }));
  const rps = (name: string) => of(name).map((run) => run.rps);
  const cpu = (name: string) => of(name).map((run) => run.cpuUsPerRequest);
  return {
    file: file.label,
    bytes: file.bytes.length,
    cells,
    edgeOverNginx: ratioSummary(rps("edge"), rps("nginx")),
    edgeOverSirv: ratioSummary(rps("edge"), rps("sirv")),
    edgeOverBareNode: ratioSummary(rps("edge"), rps("bare node")),
    // Requests per CPU-second: the other's CPU time per request over the edge's.
    cpuEdgeOverNginx: ratioSummary(cpu("nginx"), cpu("edge")),
    cpuEdgeOverBareNode: ratioSummary(cpu("bare node"), cpu("edge")),
  };
}

/** Checks that a contender answers 200 with exactly the file's bytes, uncompressed; returns its header size. */
async function checkServes(contender: Contender, hostname: string, file: ServedFile): Promise<number> {
  const reply = await httpGet(contender.url, hostname, file.url);
  if (
    reply.status !== 200 ||
    !reply.body.equals(file.bytes) ||
    reply.headers["content-encoding"] !== undefined
  ) {
    throw new Error(
      `${contender.name} does not serve ${file.path} as it is: status ${reply.status}, ${reply.body.length} bytes, ` +
        `encoding ${String(reply.headers["content-encoding"])}`,
    );
  }
  return reply.headerBytes;
}
