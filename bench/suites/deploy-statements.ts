import { deployFiles } from "../lib/api-deploy.js";
import type { PgCounter, PgTraffic } from "../lib/pg-counter.js";
import { summarize } from "../lib/stats.js";

/** What one first deploy cost PostgreSQL, in all and step by step (create, prepare, upload, deploy). */
export interface DeployTraffic {
  files: number;
  total: PgTraffic;
  steps: Record<"create" | "prepare" | "upload" | "deploy", number>;
}

/** Statements per first deploy on PostgreSQL, and 10,000-file first deploys timed on both engines. */
export interface StatementsFigure {
  traffic: DeployTraffic[];
  /** Milliseconds of each 10,000-file first deploy, in the order run (alternated). */
  embeddedMs: number[];
  postgresMs: number[];
}

/**
 * First deploys (a new project each) through `counter`, counting what each step sends to
 * PostgreSQL (the manifest listener's connection is not counted), then `rounds` 10,000-file first
 * deploys on each engine, alternated so that the machine's load falls on both alike.
 */
export async function deployStatements(options: {
  embeddedApi: string;
  postgresApi: string;
  counter: PgCounter;
  site: (files: number) => Map<string, Buffer>;
  rounds: number;
}): Promise<StatementsFigure> {
  const { counter, site } = options;
  const traffic: DeployTraffic[] = [];
  for (const files of [100, 10_000]) {
    const steps = { create: 0, prepare: 0, upload: 0, deploy: 0 };
    let step: keyof typeof steps = "create";
    let mark = 0;
    counter.reset();
    await deployFiles(options.postgresApi, site(files), undefined, (next) => {
      const now = counter.traffic().statements;
      steps[step] += now - mark;
      mark = now;
      step = next;
    });
    const total = counter.traffic();
    steps[step] += total.statements - mark;
    traffic.push({ files, total, steps });
  }
  const embeddedMs: number[] = [];
  const postgresMs: number[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const order: [string, number[]][] = [
      [options.embeddedApi, embeddedMs],
      [options.postgresApi, postgresMs],
    ];
    if (round % 2 === 1) order.reverse();
    for (const [api, samples] of order) {
      const content = site(10_000);
      const started = performance.now();
      await deployFiles(api, content);
      samples.push(performance.now() - started);
    }
  }
  return { traffic, embeddedMs, postgresMs };
}

/** The figures as SCALING.md shows them. */
export function statementsReport(figure: StatementsFigure): string[] {
  const ms = (samples: number[]) => samples.map((value) => value.toFixed(0)).join(" / ");
  const embedded = summarize(figure.embeddedMs).median;
  const postgres = summarize(figure.postgresMs).median;
  return [
    "| PostgreSQL per first deploy | statements | create | prepare | upload | deploy | bytes to PostgreSQL | bytes back |",
    "|---|---|---|---|---|---|---|---|",
    ...figure.traffic.map(
      ({ files, total, steps }) =>
        `| ${files} files | ${total.statements} | ${steps.create} | ${steps.prepare} | ${steps.upload} | ${steps.deploy} | ${total.bytesSent} | ${total.bytesReceived} |`,
    ),
    "",
    `First deploy of 10,000 files (2 KB each), alternated: embedded ${ms(figure.embeddedMs)} ms, ` +
      `PostgreSQL + object store ${ms(figure.postgresMs)} ms; medians ${embedded.toFixed(0)} and ` +
      `${postgres.toFixed(0)} ms, ${(postgres / embedded).toFixed(2)}×.`,
  ];
}
