import type { Summary } from "./stats.js";

/** One contender on one workload of the hashing benchmark, over the rounds. */
export interface HashCell {
  /** A key of CONTENDER_LABELS (bench/lib/hash-contenders.ts). */
  contender: string;
  /** Base64 text hashed per second of CPU time (one core's worth), in MB (10^6 bytes). */
  mbPerSecond: Summary;
  /** The same per second of wall time: lower whenever others share the cores. */
  wallMbPerSecond: Summary;
  /** Per-round ratio of MB/s to hash-wasm's in the same round. */
  overHashWasm: Summary;
  /** Import and first hasher in a cold process; absent for b3sum. */
  startupMs?: Summary;
  /** Peak RSS while hashing over RSS before; absent for b3sum. */
  memoryGrowthBytes?: Summary;
}

/** One workload: the same inputs hashed by every contender. */
export interface HashWorkloadResult {
  name: string;
  files: number;
  fileBytes: number;
  /** Base64 text hashed per run, all files. */
  textBytes: number;
  /** Largest update: a file's text goes in pieces of at most this. */
  chunkBytes: number;
  /** The first file's asset hash, which every contender gave. */
  firstDigest: string;
  cells: HashCell[];
  /** The npm library with the highest median MB/s. */
  fastest: string;
  /** Per-round ratio of ours, fed bytes, to the fastest npm library of that round. */
  oursOverFastest: Summary;
  /** The same for ours fed strings. */
  oursStringsOverFastest: Summary;
}

/** Benchmark 5 (issue 9): BLAKE3 libraries on the asset hash. */
export interface HashResult {
  rounds: number;
  workloads: HashWorkloadResult[];
  /** Whether the native b3sum reference ran. */
  b3sum: boolean;
}
