import type { HashResult } from "./hash-types.js";
import type { Summary } from "./stats.js";

/** One contender serving one file, over the rounds. */
export interface ServingCell {
  contender: string;
  rps: Summary;
  p99Ms: Summary;
  /** The server's CPU time (user and system, from /proc) per request answered, in microseconds. */
  cpuUsPerRequest: Summary;
  /** Socket errors, timeouts and 4xx/5xx over all rounds. */
  errors: number;
  /** Size of the response's status line and headers. */
  headerBytes: number;
}

/** Benchmark 1 for one file. */
export interface EdgeFileResult {
  file: string;
  bytes: number;
  cells: ServingCell[];
  /** Per-round ratios of requests per second. */
  edgeOverNginx: Summary;
  edgeOverSirv: Summary;
  /** Against node:http answering from memory: how much of Node's own ceiling the edge reaches. */
  edgeOverBareNode: Summary;
  /** Per-round ratios of requests per CPU-second (the other's CPU per request over the edge's). */
  cpuEdgeOverNginx: Summary;
  cpuEdgeOverBareNode: Summary;
}

export interface EdgeResult {
  rounds: number;
  seconds: number;
  files: EdgeFileResult[];
}

/** One file and workload of benchmark 4: requests per second without and with the rules files. */
export interface RulesRow {
  file: string;
  workload: "same target" | "every target new";
  without: Summary;
  with: Summary;
  /** Per-round ratios of requests per second, with rules over without. */
  withOverWithout: Summary;
  errors: number;
}

/** Benchmark 4 (issue 11): the edge with 100 `_redirects` and 20 `_headers` rules against none. */
export interface RulesResult {
  rounds: number;
  seconds: number;
  redirectRules: number;
  headerRules: number;
  rows: RulesRow[];
}

/** One deploy step of benchmark 2, over the rounds. */
export interface DeployStepResult {
  step: "first" | "unchanged" | "changed";
  wallMs: Summary;
  /** Files of the site over the median wall time. */
  filesPerSecond: number;
  /** Per-round ratio to the reference (cp -r + sync) of the same round. */
  overReference: Summary;
  clientPeakRss: Summary | undefined;
  serverPeakRss: Summary | undefined;
  /** Assets the client uploaded, each round (a check that the step did what it says). */
  uploaded: number[];
  /** Files in the server's data folder after the step, databases included. */
  filesOnDisk?: Summary;
  /** The unchanged step: per-round ratio to rsync finding nothing to send. */
  overRsync?: Summary;
}

export interface DeploySiteResult {
  name: string;
  files: number;
  bytes: number;
  changedFiles: number;
  reference: { wallMs: Summary };
  /** `rsync -a` to a local daemon that holds the site already. */
  rsyncUnchanged?: { wallMs: Summary };
  steps: DeployStepResult[];
}

export interface DeployResult {
  rounds: number;
  sites: DeploySiteResult[];
}

export interface PrepareLatency {
  entries: number;
  ms: Summary;
  buckets: number;
  requestBytes: number;
}

export interface LoadCell {
  name: string;
  rps: Summary;
  p99Ms: Summary;
  errors: number;
  requests: number;
}

/** The edge's latency while a large prepare runs (issue 14), over the rounds. */
export interface EdgeDuringPrepare {
  name: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** How long each round's prepare took. */
  prepareMs: number[];
}

/** The server's memory while request bodies are held open (issue 14). */
export interface HeldBodies {
  name: string;
  withToken: boolean;
  rssBeforeBytes: number;
  rssAfterBytes: number;
  peakRssBytes: number | undefined;
  /** How many connections got each status (or none while held). */
  answers: Record<string, number>;
}

/** One attack of issue 31, from one client: what it got, and what the server and its edge paid. */
export interface AttackResult {
  name: string;
  /** What the server answered, in words (statuses and codes). */
  outcome: string;
  seconds: number;
  /** Edge requests answered while the attack ran, their p99 and worst wait. */
  requests: number;
  p99Ms: number;
  maxMs: number;
  dataDirGrowthBytes: number;
  rssGrowthBytes: number;
}

export interface ApiResult {
  rounds: number;
  prepare: PrepareLatency[];
  /** Median latency of the largest manifest over the smallest's. */
  growth: number;
  /** The same, divided by the ratio of entries: 1 is linear. */
  growthPerEntry: number;
  loadRounds: number;
  loadSeconds: number;
  load: LoadCell[];
  /** Issue 14: the edge during a large prepare, memory with bodies held open. */
  abuse?: { edgeDuringPrepare: EdgeDuringPrepare[]; heldBodies: HeldBodies[] };
}

/** The machine a run was taken on. */
export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  node: string;
  kernel: string;
  loadBefore: number[];
  loadAfter: number[];
}

/** The top of a CPU profile. */
export interface ProfileSummary {
  name: string;
  file: string;
  totalMs: number;
  top: { function: string; location: string; selfMs: number; selfPercent: number; totalPercent: number }[];
}

/** Everything one `npm run bench` measured. */
export interface BenchResults {
  startedAt: string;
  durationSeconds: number;
  quick: boolean;
  command: string;
  machine: MachineInfo;
  edge?: EdgeResult;
  rules?: RulesResult;
  deploy?: DeployResult;
  api?: ApiResult;
  /** Issue 31: the second round of attacks, each from one client. */
  attacks?: AttackResult[];
  hash?: HashResult;
  profiles?: ProfileSummary[];
}
