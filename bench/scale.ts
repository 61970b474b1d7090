import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { manifestEntries } from "./suites/api-load.js";
import { createProject, deployFiles, postJson, prepareBody } from "./lib/api-deploy.js";
import { machineInfo } from "./lib/machine.js";
import { startPgCounter, type PgTraffic } from "./lib/pg-counter.js";
import { STORAGE_LIMITS_OFF, startServerProcess } from "./lib/server-process.js";
import { summarize } from "./lib/stats.js";
import { runWrk } from "./lib/wrk.js";
import { invalidationLoad, type InvalidationFigure } from "./suites/invalidation-load.js";
import { publishPropagation } from "./suites/publish-propagation.js";
import { deployStatements, statementsReport } from "./suites/deploy-statements.js";
import S3rver from "s3rver";

/**
 * `npm run bench:scale`: what one process carries, embedded (SQLite, local folder) and on
 * PostgreSQL, side by side in one run, for SCALING.md. Not part of `npm test`.
 */
const DATABASE = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SECONDS = Number(process.env.SCALE_SECONDS ?? 10);
const WORK = mkdtempSync(join(tmpdir(), "bench-scale-"));
// SCALE_ONLY=invalidation runs the invalidation figures only (issue 32), on both engines;
// SCALE_ONLY=propagation only how soon a publish shows on another process's edge;
// SCALE_ONLY=statements only what a first deploy costs PostgreSQL, and its time on both engines;
// SCALE_ONLY=prepare only the prepare of 100,000 entries, on both engines (SCALE_ROUNDS each).
const ONLY_INVALIDATION = process.env.SCALE_ONLY === "invalidation";
const ONLY_PROPAGATION = process.env.SCALE_ONLY === "propagation";
const ONLY_STATEMENTS = process.env.SCALE_ONLY === "statements";
const ONLY_PREPARE = process.env.SCALE_ONLY === "prepare";
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 3);
const PUBLISHES = Number(process.env.SCALE_PUBLISHES ?? 100);

interface EngineFigures {
  engine: string;
  edgeWarmRps: number;
  edgeRoutesRps: number;
  deploysPerSecond: number;
  prepare100kMs: number;
  publish: { files: number; ms: number; traffic?: PgTraffic }[];
  invalidation: InvalidationFigure[];
}

function site(files: number, bytes = 2_000): Map<string, Buffer> {
  const map = new Map<string, Buffer>();
  for (let i = 0; i < files; i++) map.set(`/pages/${Math.floor(i / 100)}/page-${i}.html`, randomBytes(bytes));
  map.set("/index.html", Buffer.from(`<h1>${randomBytes(8).toString("hex")}</h1>`.padEnd(bytes, " ")));
  return map;
}

/** A real S3-protocol server (s3rver) on 127.0.0.1 with one bucket, for the packs. */
async function startObjectStore(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const directory = mkdtempSync(join(tmpdir(), "bench-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: "bench-packs" }],
  });
  const { port } = await server.run();
  return {
    env: {
      OBJECT_STORE_URL: "s3://bench-packs/scale/",
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_REGION: "us-east-1",
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_FORCE_PATH_STYLE: "true",
    },
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The environment of a bench server process: limits off, quiet; `extra` on top. */
function serverEnv(extra: Record<string, string>): Record<string, string> {
  return {
    CREATE_LIMIT_PER_ADDRESS: "0",
    CREATE_LIMIT_PER_FINGERPRINT: "0",
    PREPARE_LIMIT_PER_PROJECT: "0",
    PREPARE_LIMIT_PER_ADDRESS: "0",
    LOG_LEVEL: "warn",
    // Hashing 10,000 files takes longer than the default 5 s of keep-alive: fetch would reuse a
    // connection the server is closing at that moment (EPIPE).
    KEEP_ALIVE_TIMEOUT_SECONDS: "120",
    ...STORAGE_LIMITS_OFF,
    ...extra,
  };
}

/** SCALE_ONLY=statements: an embedded and a PostgreSQL + object store process side by side. */
async function statements(): Promise<string> {
  const counter = await startPgCounter(DATABASE);
  const objects = await startObjectStore();
  const schema = `bench_scale_${process.pid}_${Date.now().toString(36)}_s`;
  const embedded = await startServerProcess({ dataDir: join(WORK, "embedded"), env: serverEnv({}) });
  try {
    const postgres = await startServerProcess({
      dataDir: join(WORK, "postgres"),
      env: serverEnv({ DATABASE_URL: counter.url, DATABASE_SCHEMA: schema, ...objects.env }),
    });
    try {
      const figure = await deployStatements({
        embeddedApi: embedded.urls.api,
        postgresApi: postgres.urls.api,
        counter,
        site,
        rounds: ROUNDS,
      });
      return statementsReport(figure).join("\n");
    } finally {
      await postgres.stop();
    }
  } finally {
    await embedded.stop();
    await counter.close();
    await objects.close();
  }
}

async function measure(engine: "embedded" | "postgres"): Promise<EngineFigures> {
  const counter = engine === "postgres" ? await startPgCounter(DATABASE) : undefined;
  const objects = engine === "postgres" ? await startObjectStore() : undefined;
  const schema = `bench_scale_${process.pid}_${Date.now().toString(36)}`;
  const server = await startServerProcess({
    dataDir: join(WORK, engine),
    env: serverEnv(counter ? { DATABASE_URL: counter.url, DATABASE_SCHEMA: schema, ...objects?.env } : {}),
  });
  // The control of the invalidation figures: a second server on a database (and object store
  // prefix) of its own, which the publishes of the control row go to.
  const control = await startServerProcess({
    dataDir: join(WORK, `${engine}-control`),
    env: serverEnv(
      counter
        ? {
            DATABASE_URL: DATABASE,
            DATABASE_SCHEMA: `${schema}_control`,
            ...objects?.env,
            OBJECT_STORE_URL: "s3://bench-packs/control/",
          }
        : {},
    ),
  });
  try {
    const invalidation = await invalidationLoad(server.urls, WORK, SECONDS, control.urls.api);
    await control.stop();
    if (ONLY_INVALIDATION) {
      return {
        engine,
        edgeWarmRps: 0,
        edgeRoutesRps: 0,
        deploysPerSecond: 0,
        prepare100kMs: 0,
        publish: [],
        invalidation,
      };
    }
    const publish: EngineFigures["publish"] = [];
    for (const files of [100, 10_000]) {
      const content = site(files);
      counter?.reset();
      const started = performance.now();
      await deployFiles(server.urls.api, content);
      publish.push({ files, ms: performance.now() - started, traffic: counter?.traffic() });
    }
    const { hostname } = await deployFiles(server.urls.api, site(1));
    const host = { Host: hostname };
    await runWrk({ url: `${server.urls.edge}/`, seconds: 2, headers: host });
    const warm = await runWrk({ url: `${server.urls.edge}/`, seconds: SECONDS, headers: host });
    if (warm.errors > 0)
      throw new Error(`the edge answered ${warm.errors} of ${warm.requests} requests with errors`);
    const routes = await runWrk({
      url: `${server.urls.edge}/`,
      seconds: SECONDS,
      headers: host,
      uniqueTargets: true,
    });
    const deploys = await deploysPerSecond(server.urls.api);
    const prepare = await prepareLatency(server.urls.api);
    return {
      engine,
      edgeWarmRps: warm.rps,
      edgeRoutesRps: routes.rps,
      deploysPerSecond: deploys,
      prepare100kMs: prepare,
      publish,
      invalidation,
    };
  } finally {
    await control.stop();
    await server.stop();
    await counter?.close();
    await objects?.close();
  }
}

/** Four clients deploying small sites (10 files of 2 KB, a new project each) for SECONDS. */
async function deploysPerSecond(apiUrl: string): Promise<number> {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      await deployFiles(apiUrl, site(10));
      done++;
    }
  };
  const started = performance.now();
  await Promise.all([worker(), worker(), worker(), worker()]);
  return done / ((performance.now() - started) / 1000);
}

/** Median of `rounds` prepares of 100,000 entries nothing holds yet. */
async function prepareLatency(apiUrl: string, rounds = 3): Promise<number> {
  const project = await createProject(apiUrl);
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const body = prepareBody(project, manifestEntries(100_000));
    const started = performance.now();
    const reply = await postJson(`${apiUrl}/projects/${project.slug}/prepare`, body, project.token);
    if (reply.status !== 200) throw new Error(`prepare answered ${reply.status}`);
    samples.push(performance.now() - started);
  }
  return summarize(samples).median;
}

/** Edge req/s and p99 over 200 warm sites per publish rate, and req/s against no publishes. */
function invalidationReport(figures: EngineFigures[]): string[] {
  const [embedded, postgres] = figures as [EngineFigures, EngineFigures];
  const cells = (all: InvalidationFigure[], i: number) => {
    const f = all[i]!;
    return `${f.publishedPerSecond.toFixed(1)} | ${f.rps.toFixed(0)} | ${(f.rps / all[0]!.rps).toFixed(2)}× | ${f.p99Ms.toFixed(1)}`;
  };
  const rateOf = (f: InvalidationFigure) =>
    f.elsewhere ? `${f.rate}, to another server (control: this edge not told)` : `${f.rate}`;
  return [
    "| other sites published/s (asked) | embedded: done/s | req/s | of 0/s | p99 ms | PostgreSQL: done/s | req/s | of 0/s | p99 ms |",
    "|---|---|---|---|---|---|---|---|---|",
    ...embedded.invalidation.map(
      (f, i) => `| ${rateOf(f)} | ${cells(embedded.invalidation, i)} | ${cells(postgres.invalidation, i)} |`,
    ),
  ];
}

function report(figures: EngineFigures[]): string {
  const [embedded, postgres] = figures as [EngineFigures, EngineFigures];
  const edge = [
    "",
    "Edge over 200 warm sites (one 2 KB page each, wrk 2×50, Host in turn) while other sites are published:",
    "",
    ...invalidationReport(figures),
  ];
  if (ONLY_INVALIDATION)
    return [`Machine: ${JSON.stringify(machineInfo())}; ${SECONDS} s per load step.`, ...edge].join("\n");
  const row = (name: string, a: number, b: number, digits = 0) =>
    `| ${name} | ${a.toFixed(digits)} | ${b.toFixed(digits)} | ${(b / a).toFixed(2)}× |`;
  const lines = [
    `Machine: ${JSON.stringify(machineInfo())}; ${SECONDS} s per load step.`,
    "",
    "| figure (one process, every role) | embedded | PostgreSQL + object store | PostgreSQL / embedded |",
    "|---|---|---|---|",
    row("edge req/s, warm (one 2 KB page, wrk 2×50)", embedded.edgeWarmRps, postgres.edgeWarmRps),
    row("edge req/s, every URL new (route not remembered)", embedded.edgeRoutesRps, postgres.edgeRoutesRps),
    row(
      "deploys/s (new project, 10 files of 2 KB, 4 clients)",
      embedded.deploysPerSecond,
      postgres.deploysPerSecond,
      1,
    ),
    row("prepare of 100,000 entries, ms (median of 3)", embedded.prepare100kMs, postgres.prepare100kMs),
    ...embedded.publish.map((e, i) =>
      row(`first deploy of ${e.files} files, ms`, e.ms, postgres.publish[i]!.ms),
    ),
    "",
    "| PostgreSQL per first deploy (create, prepare, upload, deploy) | statements | bytes to PostgreSQL | bytes back |",
    "|---|---|---|---|",
    ...postgres.publish.map(
      (p) =>
        `| ${p.files} files | ${p.traffic!.statements} | ${p.traffic!.bytesSent} | ${p.traffic!.bytesReceived} |`,
    ),
    ...edge,
  ];
  return lines.join("\n");
}

/** Two processes on one PostgreSQL schema and object store: how soon the second's edge shows a publish. */
async function propagation(): Promise<string> {
  const objects = await startObjectStore();
  const schema = `bench_scale_${process.pid}_${Date.now().toString(36)}_p`;
  try {
    const figure = await publishPropagation({
      work: join(WORK, "propagation"),
      env: { DATABASE_URL: DATABASE, DATABASE_SCHEMA: schema, ...objects.env },
      publishes: PUBLISHES,
    });
    return [
      "",
      `A publish seen on another process's edge (two processes, every role each, one PostgreSQL schema; ${figure.publishes} redeploys of one page):`,
      "",
      "| first request after the answer got the old page: same process | other process | other process: from the answer to the end of the first request that got the new page, p50 ms | p99 ms | max ms |",
      "|---|---|---|---|---|",
      `| ${figure.staleFirstSame} | ${figure.staleFirstOther} | ${figure.p50Ms.toFixed(1)} | ${figure.p99Ms.toFixed(1)} | ${figure.maxMs.toFixed(1)} |`,
    ].join("\n");
  } finally {
    await objects.close();
  }
}

/** SCALE_ONLY=prepare: the median prepare of 100,000 entries on each engine, the two alternated. */
async function prepares(): Promise<string> {
  const objects = await startObjectStore();
  const schema = `bench_scale_${process.pid}_${Date.now().toString(36)}_p`;
  const embedded = await startServerProcess({ dataDir: join(WORK, "embedded"), env: serverEnv({}) });
  const postgres = await startServerProcess({
    dataDir: join(WORK, "postgres"),
    env: serverEnv({ DATABASE_URL: DATABASE, DATABASE_SCHEMA: schema, ...objects.env }),
  });
  try {
    const medians = { embedded: [] as number[], postgres: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      medians.embedded.push(await prepareLatency(embedded.urls.api, 1));
      medians.postgres.push(await prepareLatency(postgres.urls.api, 1));
    }
    const cell = (all: number[]) =>
      `${summarize(all).median.toFixed(0)} (${Math.min(...all).toFixed(0)}-${Math.max(...all).toFixed(0)})`;
    return [
      `| prepare of 100,000 entries, ms, median of ${ROUNDS} (range) | embedded | PostgreSQL + s3rver |`,
      "|---|---|---|",
      `| | ${cell(medians.embedded)} | ${cell(medians.postgres)} |`,
    ].join("\n");
  } finally {
    await postgres.stop();
    await embedded.stop();
    await objects.close();
  }
}

if (ONLY_PREPARE) {
  console.log(`Machine: ${JSON.stringify(machineInfo())}.`);
  console.log(await prepares());
  console.log(`Load average after: ${JSON.stringify(loadavg())}.`);
} else if (ONLY_PROPAGATION) {
  console.log(`Machine: ${JSON.stringify(machineInfo())}.`);
  console.log(await propagation());
} else if (ONLY_STATEMENTS) {
  console.log(`Machine: ${JSON.stringify(machineInfo())}.`);
  console.log(await statements());
  console.log(`Load average after: ${JSON.stringify(loadavg())}.`);
} else {
  const figures = [await measure("embedded"), await measure("postgres")];
  console.log(report(figures));
  if (!ONLY_INVALIDATION) console.log(await propagation());
}
rmSync(WORK, { recursive: true, force: true });
