import { deployFiles } from "../lib/api-deploy.js";
import { httpGet } from "../lib/http-get.js";
import { startServerProcess, type ServerProcess } from "../lib/server-process.js";
import { ratioSummary, rotate, summarize } from "../lib/stats.js";
import type { RulesResult, RulesRow } from "../lib/types.js";
import { runWrk, type WrkResult } from "../lib/wrk.js";
import { servedFiles, type ServedFile } from "./edge-files.js";
import { benchRulesFiles } from "./site-rules-files.js";

export interface RulesOptions {
  workDir: string;
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  log: (line: string) => void;
}

const WORKLOADS = [
  { name: "same target", unique: false },
  // Every request a target of its own: no remembered route, so every request runs the rules.
  { name: "every target new", unique: true },
] as const;

/**
 * Benchmark 4 (issue 11): the edge serving benchmark 1's page and script from one server, on a site without
 * rules files and on the same site with 100 `_redirects` rules and 20 `_headers` rules, in turns
 * (the order rotating each round); each file twice, once always at the same target (routes are
 * remembered) and once with a new query string on every request (every request routed afresh).
 */
export async function runEdgeRules(options: RulesOptions): Promise<RulesResult> {
  const { log } = options;
  // The page and the script: the 1 MB image is bound by bytes on the wire, not by routing.
  const files = servedFiles().filter((file) => !file.label.startsWith("1 MB"));
  const rules = benchRulesFiles();
  let server: ServerProcess | undefined;
  try {
    server = await startServerProcess({
      dataDir: `${options.workDir}/server-data`,
      env: { LOG_LEVEL: "warn" },
    });
    const plainFiles = new Map(files.map((file) => [file.path, file.bytes]));
    const ruledFiles = new Map([
      ...plainFiles,
      ["/_redirects", Buffer.from(rules.redirects)],
      ["/_headers", Buffer.from(rules.headers)],
    ]);
    const sites = [
      { name: "without rules", hostname: (await deployFiles(server.urls.api, plainFiles)).hostname },
      { name: "with rules", hostname: (await deployFiles(server.urls.api, ruledFiles)).hostname },
    ];
    const edge = server.urls.edge;
    for (const site of sites) for (const file of files) await checkServes(edge, site.hostname, file);
    log(`rules: edge ${edge}; sites ${sites.map((site) => `${site.name} ${site.hostname}`).join(", ")}`);

    const wrk = (hostname: string, file: ServedFile, unique: boolean, seconds: number) =>
      runWrk({ url: edge + file.url, seconds, headers: { Host: hostname }, uniqueTargets: unique });
    for (const site of sites)
      for (const file of files) await wrk(site.hostname, file, false, options.warmupSeconds);

    const runs = new Map<string, WrkResult[]>();
    for (let round = 0; round < options.rounds; round++) {
      for (const file of files) {
        for (const workload of WORKLOADS) {
          for (const site of rotate(sites, round)) {
            const result = await wrk(site.hostname, file, workload.unique, options.seconds);
            const key = `${file.path} ${workload.name} ${site.name}`;
            runs.set(key, [...(runs.get(key) ?? []), result]);
            log(
              `rules: round ${round + 1}/${options.rounds} ${file.label}, ${workload.name}, ${site.name}: ${Math.round(result.rps)} req/s`,
            );
          }
        }
      }
    }
    const rows: RulesRow[] = [];
    for (const file of files) {
      for (const workload of WORKLOADS) {
        const of = (site: string) => runs.get(`${file.path} ${workload.name} ${site}`) ?? [];
        const rps = (site: string) => of(site).map((run) => run.rps);
        rows.push({
          file: file.label,
          workload: workload.name,
          without: summarize(rps("without rules")),
          with: summarize(rps("with rules")),
          withOverWithout: ratioSummary(rps("with rules"), rps("without rules")),
          errors: [...of("without rules"), ...of("with rules")].reduce((sum, run) => sum + run.errors, 0),
        });
      }
    }
    return { rounds: options.rounds, seconds: options.seconds, redirectRules: 100, headerRules: 20, rows };
  } finally {
    await server?.stop();
  }
}

/** Checks that the site answers 200 with exactly the file's bytes. */
async function checkServes(edge: string, hostname: string, file: ServedFile): Promise<void> {
  const reply = await httpGet(edge, hostname, file.url);
  if (reply.status !== 200 || !reply.body.equals(file.bytes)) {
    throw new Error(`the edge does not serve ${file.path} on ${hostname}: status ${reply.status}`);
  }
}
