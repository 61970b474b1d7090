import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createProject, postJson, prepareBody, randomIdentity, type ApiProject } from "../lib/api-deploy.js";
import { STORAGE_LIMITS_OFF, startServerProcess } from "../lib/server-process.js";
import { runAbuse } from "./api-abuse.js";
import { rotate, summarize } from "../lib/stats.js";
import type { ApiResult, LoadCell, PrepareLatency } from "../lib/types.js";
import { runWrk, type WrkResult } from "../lib/wrk.js";

export interface ApiOptions {
  workDir: string;
  rounds: number;
  entries: number[];
  loadRounds: number;
  loadSeconds: number;
  loadManifestFiles: number;
  log: (line: string) => void;
}

/** A manifest of `count` entries in folders of 100, random hashes (nothing held yet) and sizes. */
export function manifestEntries(count: number): { path: string; hash: string; size: number }[] {
  return Array.from({ length: count }, (_, i) => ({
    path: `/assets/${Math.floor(i / 100)}/chunk-${i}.js`,
    hash: randomBytes(16).toString("hex"),
    size: 100 + ((i * 7919) % 60_000),
  }));
}

/**
 * Benchmark 3: prepare latency for large manifests (alternating sizes, several rounds), then
 * `POST /projects` and a 50-file prepare under load with wrk (2 threads, 50 connections). The
 * server's create and prepare limits are switched off (0) so the load measures work, not refusals.
 */
export async function runApi(options: ApiOptions): Promise<ApiResult> {
  const { log } = options;
  mkdirSync(options.workDir, { recursive: true });
  const server = await startServerProcess({
    dataDir: join(options.workDir, "server-data"),
    env: {
      CREATE_LIMIT_PER_ADDRESS: "0",
      CREATE_LIMIT_PER_FINGERPRINT: "0",
      PREPARE_LIMIT_PER_PROJECT: "0",
      PREPARE_LIMIT_PER_ADDRESS: "0",
      // The manifests declare gigabytes (100,000 entries up to 60 KB, none ever uploaded).
      ...STORAGE_LIMITS_OFF,
    },
  });
  try {
    const project = await createProject(server.urls.api);
    const bodies = options.entries.map((count) => ({
      count,
      body: prepareBody(project, manifestEntries(count)),
    }));
    const prepareUrl = `${server.urls.api}/projects/${project.slug}/prepare`;
    // One untimed prepare of each size first: the JIT and SQLite's caches warm up.
    for (const { body } of bodies) await timedPrepare(prepareUrl, body, project);
    const latencies = new Map<number, number[]>();
    let buckets = new Map<number, number>();
    for (let round = 0; round < options.rounds; round++) {
      for (const { count, body } of rotate(bodies, round)) {
        const { ms, bucketCount } = await timedPrepare(prepareUrl, body, project);
        latencies.set(count, [...(latencies.get(count) ?? []), ms]);
        buckets = buckets.set(count, bucketCount);
        log(`api: round ${round + 1}/${options.rounds} prepare of ${count} entries: ${ms.toFixed(0)} ms`);
      }
    }
    const prepare: PrepareLatency[] = bodies.map(({ count, body }) => ({
      entries: count,
      ms: summarize(latencies.get(count)!),
      buckets: buckets.get(count) ?? 0,
      requestBytes: Buffer.byteLength(body),
    }));
    const first = prepare[0]!;
    const last = prepare[prepare.length - 1]!;
    const growth = last.ms.median / first.ms.median;

    const load = await runLoad(options, server.urls.api, project);
    await server.stop();
    const abuse = await runAbuse({
      workDir: options.workDir,
      entries: last.entries,
      rounds: Math.min(options.rounds, 3),
      heldBodies: 40,
      log,
    });
    return {
      rounds: options.rounds,
      prepare,
      growth,
      growthPerEntry: growth / (last.entries / first.entries),
      loadRounds: options.loadRounds,
      loadSeconds: options.loadSeconds,
      load,
      abuse,
    };
  } finally {
    await server.stop();
  }
}

async function runLoad(options: ApiOptions, apiUrl: string, project: ApiProject): Promise<LoadCell[]> {
  const createFile = join(options.workDir, "create.json");
  writeFileSync(createFile, JSON.stringify(randomIdentity()));
  const prepareFile = join(options.workDir, `prepare-${options.loadManifestFiles}.json`);
  writeFileSync(prepareFile, prepareBody(project, manifestEntries(options.loadManifestFiles)));
  const json = { "Content-Type": "application/json" };
  const cases = [
    { name: "POST /projects", url: `${apiUrl}/projects`, headers: json, bodyFile: createFile },
    {
      name: `prepare, ${options.loadManifestFiles}-file manifest`,
      url: `${apiUrl}/projects/${project.slug}/prepare`,
      headers: { ...json, Authorization: `Bearer ${project.token}` },
      bodyFile: prepareFile,
    },
  ];
  const check = await postJson(cases[1]!.url, prepareBody(project, manifestEntries(2)), project.token);
  if (check.status !== 200)
    throw new Error(`prepare answered ${check.status}: ${JSON.stringify(check.body)}`);
  for (const c of cases) await runWrk({ ...c, seconds: 1 });
  const runs = new Map<string, WrkResult[]>();
  for (let round = 0; round < options.loadRounds; round++) {
    for (const c of rotate(cases, round)) {
      const result = await runWrk({ ...c, seconds: options.loadSeconds });
      runs.set(c.name, [...(runs.get(c.name) ?? []), result]);
      options.log(
        `api: round ${round + 1}/${options.loadRounds} ${c.name}: ${Math.round(result.rps)} req/s, ` +
          `p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors`,
      );
    }
  }
  return cases.map(({ name }) => {
    const list = runs.get(name)!;
    return {
      name,
      rps: summarize(list.map((run) => run.rps)),
      p99Ms: summarize(list.map((run) => run.p99Ms)),
      errors: list.reduce((sum, run) => sum + run.errors, 0),
      requests: list.reduce((sum, run) => sum + run.requests, 0),
    };
  });
}

/** Sends one prepare and times it until the whole answer has arrived. */
async function timedPrepare(
  url: string,
  body: string,
  project: ApiProject,
): Promise<{ ms: number; bucketCount: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${project.token}` },
    body,
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`prepare answered ${response.status}: ${text.slice(0, 300)}`);
  return { ms, bucketCount: (JSON.parse(text) as { buckets: string[][] }).buckets.length };
}
