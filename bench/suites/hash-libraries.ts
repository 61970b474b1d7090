import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { b3sumAvailable, runB3sum, writeB3sumInput, type B3sumInput } from "../lib/b3sum.js";
import { HASH_CONTENDERS, HASH_LIBRARIES } from "../lib/hash-contenders.js";
import type { HashRunReport, HashRunRequest } from "../lib/hash-runner.js";
import type { HashCell, HashResult, HashWorkloadResult } from "../lib/hash-types.js";
import { BENCH_DIST } from "../lib/paths.js";
import { runChecked } from "../lib/proc.js";
import { ratioSummary, rotate, summarize } from "../lib/stats.js";

export interface HashOptions {
  workDir: string;
  rounds: number;
  /** How many 2 KB files the small-file workload hashes. */
  smallFiles: number;
  /** How many 25 MiB files the large-file workload hashes. */
  largeFiles: number;
  log: (line: string) => void;
}

/** The client's read size (a multiple of 3 bytes) gives base64 pieces of 64 KiB. */
const CHUNK_BYTES = 64 * 1024;
const RUNNER = join(BENCH_DIST, "lib", "hash-runner.js");

interface Workload {
  name: string;
  files: number;
  fileBytes: number;
  extension: string;
  inputFile: string;
  b3sum: B3sumInput | undefined;
}

/**
 * Benchmark 5: the BLAKE3 libraries that install with a plain `npm ci` (hash-wasm, blake3-wasm,
 * blake3-jit) and our own `AssetHasher`, each in a cold process of its own, hash the same base64
 * texts as the asset hash does (many 2 KB files in one update each; a few 25 MiB files streamed in
 * 64 KiB pieces), in rotating order over the rounds; `b3sum` on one core is the native reference.
 * Every contender must give the same asset hashes, or the run fails.
 */
export async function runHashLibraries(options: HashOptions): Promise<HashResult> {
  const { workDir, log } = options;
  mkdirSync(workDir, { recursive: true });
  const withB3sum = await b3sumAvailable();
  if (!withB3sum) log("hash: b3sum not installed (apt-get install b3sum); the native reference is left out");
  const workloads = [
    makeWorkload(workDir, "2 KB files", options.smallFiles, 2048, "html", withB3sum),
    makeWorkload(workDir, "25 MiB files", options.largeFiles, 25 * 1024 * 1024, "mp4", withB3sum),
  ];
  const contenders = [...HASH_CONTENDERS, ...(withB3sum ? (["b3sum"] as const) : [])];

  const reports = new Map<string, HashRunReport[]>();
  for (let round = 0; round < options.rounds; round++) {
    for (const workload of workloads) {
      for (const contender of rotate(contenders, round)) {
        const report =
          contender === "b3sum"
            ? await runB3sum(workload.b3sum!, workDir)
            : await runContender(contender, workload);
        const key = `${workload.name} ${contender}`;
        reports.set(key, [...(reports.get(key) ?? []), report]);
        log(
          `hash: round ${round + 1}/${options.rounds} ${workload.name} ${contender}: ` +
            `${Math.round(report.textBytes / 1000 / report.cpuMs)} MB/s of CPU time, ` +
            `${Math.round(report.textBytes / 1000 / report.wallMs)} MB/s of wall time`,
        );
      }
    }
  }
  return {
    rounds: options.rounds,
    b3sum: withB3sum,
    workloads: workloads.map((workload) => workloadResult(workload, contenders, reports)),
  };
}

function makeWorkload(
  workDir: string,
  name: string,
  files: number,
  fileBytes: number,
  extension: string,
  withB3sum: boolean,
): Workload {
  const dir = join(workDir, extension);
  mkdirSync(dir, { recursive: true });
  // Large files: one file's bytes, hashed `files` times (the inputs of one run stay in memory).
  const raw = randomBytes(fileBytes >= 1024 * 1024 ? fileBytes : files * fileBytes);
  const inputFile = join(dir, "input.bin");
  writeFileSync(inputFile, raw);
  const b3sum = withB3sum ? writeB3sumInput(join(dir, "b3sum"), raw, files, fileBytes, extension) : undefined;
  return { name, files, fileBytes, extension, inputFile, b3sum };
}

async function runContender(
  contender: HashRunRequest["contender"],
  workload: Workload,
): Promise<HashRunReport> {
  const request: HashRunRequest = {
    contender,
    inputFile: workload.inputFile,
    files: workload.files,
    fileBytes: workload.fileBytes,
    chunkBytes: CHUNK_BYTES,
    extension: workload.extension,
  };
  const result = await runChecked(process.execPath, [RUNNER, JSON.stringify(request)]);
  return JSON.parse(result.stdout) as HashRunReport;
}

function workloadResult(
  workload: Workload,
  contenders: readonly string[],
  reports: ReadonlyMap<string, HashRunReport[]>,
): HashWorkloadResult {
  const of = (name: string): HashRunReport[] => reports.get(`${workload.name} ${name}`) ?? [];
  const rates = (name: string) => of(name).map((report) => report.textBytes / 1000 / report.cpuMs);
  const wallRates = (name: string) => of(name).map((report) => report.textBytes / 1000 / report.wallMs);
  const expected = of("hash-wasm")[0]!;
  for (const name of contenders) {
    for (const report of of(name)) {
      if (report.firstDigest !== expected.firstDigest || report.allDigests !== expected.allDigests) {
        throw new Error(
          `hash: ${name} disagrees with hash-wasm on ${workload.name} (first file ${report.firstDigest}, hash-wasm ${expected.firstDigest})`,
        );
      }
    }
  }
  const cells: HashCell[] = contenders.map((name) => {
    const startup = of(name).flatMap((report) => (report.startupMs === undefined ? [] : [report.startupMs]));
    const memory = of(name).flatMap((report) =>
      report.memoryGrowthBytes === undefined ? [] : [report.memoryGrowthBytes],
    );
    return {
      contender: name,
      mbPerSecond: summarize(rates(name)),
      wallMbPerSecond: summarize(wallRates(name)),
      overHashWasm: ratioSummary(rates(name), rates("hash-wasm")),
      ...(startup.length > 0 ? { startupMs: summarize(startup) } : {}),
      ...(memory.length > 0 ? { memoryGrowthBytes: summarize(memory) } : {}),
    };
  });
  const libraries = cells.filter((cell) => (HASH_LIBRARIES as readonly string[]).includes(cell.contender));
  const fastest = libraries.reduce((a, b) => (b.mbPerSecond.median > a.mbPerSecond.median ? b : a));
  const fastestPerRound = rates("hash-wasm").map((_, round) =>
    Math.max(...libraries.map((cell) => cell.mbPerSecond.samples[round]!)),
  );
  return {
    name: workload.name,
    files: workload.files,
    fileBytes: workload.fileBytes,
    textBytes: expected.textBytes,
    chunkBytes: CHUNK_BYTES,
    firstDigest: expected.firstDigest,
    cells,
    fastest: fastest.contender,
    oursOverFastest: ratioSummary(rates("ours"), fastestPerRound),
    oursStringsOverFastest: ratioSummary(rates("ours-strings"), fastestPerRound),
  };
}
