import { CONTENDER_LABELS } from "../lib/hash-contenders.js";
import type { HashResult } from "../lib/hash-types.js";
import { int, mb, ms, plusMinus, ratioWithRange, size, table, times } from "./format.js";
import type { TargetCheck } from "./targets.js";

const label = (name: string) => CONTENDER_LABELS[name as keyof typeof CONTENDER_LABELS] ?? name;

/** Benchmark 5 as one table: each contender's MB/s on each workload, its ratio to hash-wasm, start-up and memory. */
export function hashTable(hash: HashResult): string {
  const rows: string[][] = [];
  for (const workload of hash.workloads) {
    workload.cells.forEach((cell, i) => {
      rows.push([
        i === 0
          ? `${int(workload.files)} × ${size(workload.fileBytes)} (${size(workload.textBytes)} of base64)`
          : "",
        label(cell.contender),
        `${int(cell.mbPerSecond.median)}${plusMinus(cell.mbPerSecond)}`,
        `${int(cell.wallMbPerSecond.median)}${plusMinus(cell.wallMbPerSecond)}`,
        cell.contender === "hash-wasm" ? "1×" : ratioWithRange(cell.overHashWasm),
        cell.startupMs ? ms(cell.startupMs.median) : "—",
        cell.memoryGrowthBytes ? `+${mb(cell.memoryGrowthBytes.max)}` : "—",
      ]);
    });
  }
  return table(
    [
      "files",
      "hashed by",
      "MB/s (CPU time)",
      "MB/s (wall time)",
      "× hash-wasm (CPU time)",
      "load + first hasher",
      "memory while hashing",
    ],
    rows,
  );
}

/** Our hasher, fed bytes or strings, must stay within 10% of the fastest library measured, on every workload. */
export function hashTargets(hash: HashResult | undefined): TargetCheck[] {
  return (hash?.workloads ?? []).flatMap((workload) =>
    (
      [
        ["bytes", workload.oursOverFastest],
        ["strings", workload.oursStringsOverFastest],
      ] as const
    ).map(([form, ratio]) => ({
      benchmark: "hash",
      what: `${workload.name}: ours (text as ${form}) / fastest npm BLAKE3 (${workload.fastest})`,
      target: "≥ 0.9×",
      measured: times(ratio.median),
      met: ratio.median >= 0.9,
    })),
  );
}

/** The section's text: how it measures, then the table. */
export function hashSection(hash: HashResult): string {
  return (
    `### 5. Hashing libraries\n\nThe contract's asset hash (BLAKE3 of a file's base64 text, then its extension) computed by each library in a cold process of its own, on the same random inputs, ${hash.rounds} rounds in rotating order: the 2 KB files one update each (as the client hashes files up to 1 MiB), the 25 MiB files streamed in updates of 64 KiB of text (as the client and the upload service do for larger ones). Each process warms up first; the time counts hashing only (the texts are in memory). Every contender gave the same asset hashes. ` +
    `*memory while hashing*: peak RSS over RSS before, the largest over the rounds. ${hash.b3sum ? "`b3sum` reads one file per asset from the page cache, its process start included, so it is a floor for native code rather than a like-for-like row." : "`b3sum` was not installed, so there is no native reference."}\n\n${hashTable(hash)}`
  );
}
