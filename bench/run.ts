import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { machineInfo } from "./lib/machine.js";
import { BENCHMARKS_MD, RESULTS_DIR, SERVER_MAIN } from "./lib/paths.js";
import { runTimed, sleep } from "./lib/proc.js";
import type { BenchResults } from "./lib/types.js";
import { parseOptions, SUITES } from "./options.js";
import { writeBenchmarksMd } from "./report/benchmarks-md.js";
import { renderResults } from "./report/tables.js";
import { checkTargets } from "./report/targets.js";
import { runAttacks } from "./suites/api-attacks.js";
import { runApi } from "./suites/api-load.js";
import { runDeployPipeline, siteDirOf } from "./suites/deploy-pipeline.js";
import { runEdgeRules } from "./suites/edge-rules.js";
import { runEdgeServing } from "./suites/edge-serving.js";
import { runHashLibraries } from "./suites/hash-libraries.js";
import { runProfiles } from "./suites/profile.js";

// `npm run bench`: installs nothing itself (bench/install-tools.sh does, before the build), runs the
// benchmarks of issue 4, prints the tables, writes the JSON and, after a full run, BENCHMARKS.md.

const options = parseOptions(process.argv.slice(2), process.env);
const started = Date.now();
const log = (line: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

await checkPrerequisites();
if (options.waitIdle) await waitForIdle();

mkdirSync(options.workRoot, { recursive: true });
const work = mkdtempSync(join(options.workRoot, "deploy-bench-"));
// nginx's worker runs unprivileged and must reach the files it serves.
chmodSync(work, 0o755);
process.on("SIGINT", () => {
  rmSync(work, { recursive: true, force: true });
  process.exit(130);
});

const results: BenchResults = {
  startedAt: new Date(started).toISOString(),
  durationSeconds: 0,
  quick: options.quick,
  command: ["npm run bench", ...(process.argv.length > 2 ? ["--", ...process.argv.slice(2)] : [])].join(" "),
  machine: machineInfo(),
};
log(
  `bench${options.quick ? " (quick)" : ""}: ${options.suites.join(", ")}; load average ${results.machine.loadBefore.join(", ")}`,
);
try {
  if (options.suites.includes("edge")) {
    results.edge = await runEdgeServing({ workDir: join(work, "edge"), ...options.edge, log });
  }
  if (options.suites.includes("rules")) {
    results.rules = await runEdgeRules({ workDir: join(work, "rules"), ...options.rules, log });
  }
  if (options.suites.includes("deploy")) {
    results.deploy = await runDeployPipeline({ workDir: join(work, "deploy"), ...options.deploy, log });
  }
  if (options.suites.includes("api")) {
    results.api = await runApi({ workDir: join(work, "api"), ...options.api, log });
  }
  if (options.suites.includes("attacks")) {
    results.attacks = await runAttacks({ workDir: join(work, "attacks"), ...options.attacks, log });
  }
  if (options.suites.includes("hash")) {
    results.hash = await runHashLibraries({ workDir: join(work, "hash"), ...options.hash, log });
  }
  results.machine.loadAfter = loadavg().map((value) => Math.round(value * 100) / 100);
  if (options.profile) {
    const largest = options.deploy.sites[options.deploy.sites.length - 1]!;
    results.profiles = await runProfiles({
      workDir: join(work, "profile"),
      outDir: join(RESULTS_DIR, "profiles"),
      edgeFile: worstEdgeFile(results),
      site: largest,
      siteDir: results.deploy ? siteDirOf(join(work, "deploy"), largest) : undefined,
      prepareEntries: options.api.entries[options.api.entries.length - 1]!,
      loadManifestFiles: options.api.loadManifestFiles,
      log,
    });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
results.durationSeconds = (Date.now() - started) / 1000;

const markdown = renderResults(results);
console.log(`\n${markdown}\n`);
mkdirSync(RESULTS_DIR, { recursive: true });
const stamp = results.startedAt.replace(/[:.]/g, "-");
const rawFile = join(RESULTS_DIR, `run-${stamp}${options.quick ? "-quick" : ""}.json`);
writeFileSync(rawFile, `${JSON.stringify(results, null, 2)}\n`);
log(`raw results: ${rawFile}`);
if (!options.quick && SUITES.every((suite) => options.suites.includes(suite))) {
  writeFileSync(join(RESULTS_DIR, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  await writeBenchmarksMd(BENCHMARKS_MD, markdown);
  log(`updated ${BENCHMARKS_MD} and bench/results/latest.json`);
} else {
  log("BENCHMARKS.md left alone (only a full run of every benchmark rewrites it)");
}
const missed = checkTargets(results).filter((check) => !check.met);
log(
  `${missed.length} target(s) missed${missed.length ? `: ${missed.map((check) => check.what).join("; ")}` : ""}`,
);
log(`done in ${results.durationSeconds.toFixed(0)} s`);

/** The edge file furthest below its target against nginx, which the profiler then looks at. */
function worstEdgeFile(all: BenchResults): string {
  const files = all.edge?.files ?? [];
  const score = (file: (typeof files)[number]) =>
    file.edgeOverNginx.median / (file.file.startsWith("1 MB") ? 0.9 : 0.7);
  return [...files].sort((a, b) => score(a) - score(b))[0]?.file ?? "2 KB HTML";
}

async function checkPrerequisites(): Promise<void> {
  const missing: string[] = [];
  if (!existsSync(SERVER_MAIN)) missing.push(`${SERVER_MAIN} (run npm run build)`);
  for (const [tool, args] of [
    ["wrk", ["-v"]],
    ["/usr/sbin/nginx", ["-v"]],
  ] as const) {
    const ok = await runTimed(tool, args).then(
      () => true,
      () => false,
    );
    if (!ok) missing.push(tool);
  }
  if (missing.length > 0) {
    console.error(
      `bench: missing ${missing.join(", ")}; run bash bench/install-tools.sh (npm run bench does)`,
    );
    process.exit(1);
  }
}

/** Waits, up to 5 minutes, for the 1-minute load average to fall below 1. */
async function waitForIdle(): Promise<void> {
  for (let waited = 0; waited < 300; waited += 15) {
    const [one = 0] = loadavg();
    if (one < 1) return;
    log(`waiting for the machine to settle (1-minute load average ${one.toFixed(2)})`);
    await sleep(15_000);
  }
  log("the machine stayed busy; measuring anyway (the report says so)");
}
