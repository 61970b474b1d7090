import type {
  ApiResult,
  AttackResult,
  BenchResults,
  DeployResult,
  EdgeResult,
  MachineInfo,
  ProfileSummary,
  RulesResult,
} from "../lib/types.js";
import { int, mb, ms, plusMinus, ratioWithRange, size, table, times } from "./format.js";
import { hashSection } from "./hash-tables.js";
import { checkTargets, edgeTarget } from "./targets.js";
import { ATTACK_QUOTAS } from "../suites/api-attacks.js";

const STEP_NAMES = { first: "first deploy", unchanged: "unchanged redeploy", changed: "1% changed" } as const;

/** Benchmark 1 as a table: requests per second, p99 and the ratios with their targets. */
export function edgeTable(edge: EdgeResult): string {
  const rows = edge.files.map((file) => {
    const cell = (name: string) => file.cells.find((c) => c.contender === name);
    const rps = (name: string) => {
      const c = cell(name);
      return c ? `${int(c.rps.median)}${plusMinus(c.rps)}` : "—";
    };
    const p99 = ["edge", "nginx", "sirv", "bare node"]
      .map((name) => cell(name)?.p99Ms.median.toFixed(1) ?? "—")
      .join(" / ");
    const big = file.file.startsWith("1 MB");
    const cpu = ["edge", "nginx", "bare node"]
      .map((name) => cell(name)?.cpuUsPerRequest.median.toFixed(1) ?? "—")
      .join(" / ");
    return [
      file.file,
      rps("edge"),
      rps("nginx"),
      rps("sirv"),
      rps("bare node"),
      `${ratioWithRange(file.edgeOverNginx)} · target ≥ ${edgeTarget(file.file)}×`,
      `${ratioWithRange(file.edgeOverSirv)}${big ? " · target ≥ 3.5×" : ""}`,
      ratioWithRange(file.edgeOverBareNode),
      cpu,
      `${ratioWithRange(file.cpuEdgeOverNginx)} / ${ratioWithRange(file.cpuEdgeOverBareNode)}`,
      p99,
      String(file.cells.reduce((sum, c) => sum + c.errors, 0)),
    ];
  });
  return table(
    [
      "file",
      "edge req/s",
      "nginx req/s",
      "sirv req/s",
      "bare node req/s",
      "edge / nginx",
      "edge / sirv",
      "edge / bare node",
      "CPU µs per request edge / nginx / bare",
      "req per CPU-second edge / nginx, edge / bare",
      "p99 ms edge / nginx / sirv / bare",
      "errors",
    ],
    rows,
  );
}

/** Benchmark 4 as a table: requests per second without and with the rules files, and their ratio. */
export function rulesTable(rules: RulesResult): string {
  const rows = rules.rows.map((row) => [
    row.file,
    row.workload,
    `${int(row.without.median)}${plusMinus(row.without)}`,
    `${int(row.with.median)}${plusMinus(row.with)}`,
    `${ratioWithRange(row.withOverWithout)} · target ≥ 0.9×`,
    String(row.errors),
  ]);
  return table(
    ["file", "requests", "without rules req/s", "with rules req/s", "with / without", "errors"],
    rows,
  );
}

/** Benchmark 2 as a table: each step's wall time, rate, ratio to the reference and peak memory. */
export function deployTable(deploy: DeployResult): string {
  const targets = { first: "≤ 2×", unchanged: "≤ 0.25×", changed: "≤ 0.35×" } as const;
  const rows: string[][] = [];
  for (const site of deploy.sites) {
    const largest = site.files === 10_000;
    rows.push([
      `${site.name}, ${mb(site.bytes)}`,
      "reference: `cp -r` + `sync`",
      `${ms(site.reference.wallMs.median)}${plusMinus(site.reference.wallMs)}`,
      int(site.files / (site.reference.wallMs.median / 1000)),
      "1×",
      "",
      "",
      "",
      "",
    ]);
    if (site.rsyncUnchanged) {
      rows.push([
        "",
        "reference: `rsync -a` to a daemon that holds the site",
        `${ms(site.rsyncUnchanged.wallMs.median)}${plusMinus(site.rsyncUnchanged.wallMs)}`,
        int(site.files / (site.rsyncUnchanged.wallMs.median / 1000)),
        "",
        "",
        "",
        "",
        "",
      ]);
    }
    for (const step of site.steps) {
      rows.push([
        "",
        STEP_NAMES[step.step] + (step.step === "changed" ? ` (${site.changedFiles} files)` : ""),
        `${ms(step.wallMs.median)}${plusMinus(step.wallMs)}`,
        int(step.filesPerSecond),
        `${ratioWithRange(step.overReference)}${largest ? ` · target ${targets[step.step]}` : ""}` +
          (step.overRsync ? ` · ${ratioWithRange(step.overRsync)} of rsync` : ""),
        step.clientPeakRss ? mb(step.clientPeakRss.max) : "—",
        step.serverPeakRss ? mb(step.serverPeakRss.max) : "—",
        [...new Set(step.uploaded)].join(", "),
        step.filesOnDisk ? int(step.filesOnDisk.median) : "—",
      ]);
    }
  }
  return table(
    [
      "site",
      "step",
      "wall time",
      "files/s",
      "× reference",
      "client peak RSS",
      "server peak RSS",
      "uploaded",
      "files on server",
    ],
    rows,
  );
}

/** Benchmark 3 as two tables: prepare latency by manifest size, and requests under load. */
export function apiTables(api: ApiResult): string {
  const first = api.prepare[0]!;
  const latency = table(
    ["prepare manifest", "latency", "per 1,000 entries", "request body", "buckets answered"],
    api.prepare.map((p) => [
      `${int(p.entries)} entries`,
      `${ms(p.ms.median)}${plusMinus(p.ms)}`,
      ms((p.ms.median / p.entries) * 1000),
      size(p.requestBytes),
      int(p.buckets),
    ]),
  );
  const last = api.prepare[api.prepare.length - 1]!;
  const growth =
    `Growth: ${times(api.growth)} the latency for ${times(last.entries / first.entries)} the entries ` +
    `(cost per entry ${api.growthPerEntry.toFixed(2)}× that of the ${int(first.entries)}-entry manifest; 1 is linear).`;
  const load = table(
    ["under load (wrk, 2 threads, 50 connections)", "req/s", "p99", "errors / requests"],
    api.load.map((cell) => [
      cell.name,
      `${int(cell.rps.median)}${plusMinus(cell.rps)}`,
      ms(cell.p99Ms.median),
      `${int(cell.errors)} / ${int(cell.requests)}`,
    ]),
  );
  return [latency, growth, load, ...(api.abuse ? [abuseTables(api.abuse)] : [])].join("\n\n");
}

/** Issue 14: the edge during a large prepare, and memory with bodies held open. */
function abuseTables(abuse: NonNullable<ApiResult["abuse"]>): string {
  const edge = table(
    ["edge (8 keep-alive connections) while a prepare runs", "requests", "p50", "p99", "max", "prepare"],
    abuse.edgeDuringPrepare.map((cell) => [
      cell.name,
      int(cell.requests),
      ms(cell.p50Ms),
      ms(cell.p99Ms),
      ms(cell.maxMs),
      cell.prepareMs.length > 0 ? cell.prepareMs.map((value) => ms(value)).join(", ") : "—",
    ]),
  );
  const held = table(
    ["server memory (RSS)", "before", "after", "growth", "peak", "answers"],
    abuse.heldBodies.map((cell) => [
      cell.name,
      mb(cell.rssBeforeBytes),
      mb(cell.rssAfterBytes),
      `+${mb(cell.rssAfterBytes - cell.rssBeforeBytes)}`,
      cell.peakRssBytes === undefined ? "—" : mb(cell.peakRssBytes),
      Object.entries(cell.answers)
        .map(([status, count]) => `${count} × ${status}`)
        .join(", "),
    ]),
  );
  return `${edge}\n\n${held}`;
}

/** Issue 31: each attack from one client, with what it got and what the server paid. */
export function attackTable(attacks: readonly AttackResult[]): string {
  return table(
    ["attack (one client)", "answered", "time", "edge requests", "edge p99", "edge max", "data dir", "RSS"],
    attacks.map((cell) => [
      cell.name,
      cell.outcome,
      `${cell.seconds.toFixed(1)} s`,
      int(cell.requests),
      ms(cell.p99Ms),
      ms(cell.maxMs),
      `+${mb(cell.dataDirGrowthBytes)}`,
      `${cell.rssGrowthBytes >= 0 ? "+" : "−"}${mb(Math.abs(cell.rssGrowthBytes))}`,
    ]),
  );
}

/** The machine in one table. */
export function machineTable(machine: MachineInfo, results: BenchResults): string {
  return table(
    ["", ""],
    [
      ["date", results.startedAt.replace("T", " ").replace(/\.\d+Z$/, " UTC")],
      ["command", `\`${results.command}\` (${Math.round(results.durationSeconds)} s)`],
      ["CPUs (nproc)", String(machine.cpus)],
      ["CPU model", machine.cpuModel],
      ["memory", `${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB`],
      ["node", machine.node],
      ["kernel", machine.kernel],
      [
        "load average (1, 5, 15 min) before / after the run (after counts the bench itself)",
        `${machine.loadBefore.join(", ")} / ${machine.loadAfter.join(", ")}`,
      ],
    ],
  );
}

/** The targets, each met or missed. */
export function targetsTable(results: BenchResults): string {
  return table(
    ["benchmark", "what", "target", "measured", ""],
    checkTargets(results).map((check) => [
      check.benchmark,
      check.what,
      check.target,
      check.measured,
      check.met ? "met" : "**missed**",
    ]),
  );
}

/** The top functions of each profile. */
export function profileTables(profiles: readonly ProfileSummary[], top = 8): string {
  return profiles
    .map((profile) => {
      const rows = profile.top
        .slice(0, top)
        .map((entry) => [
          `\`${entry.function}\``,
          entry.location ? `\`${entry.location}\`` : "",
          `${entry.selfPercent.toFixed(1)}%`,
          `${entry.totalPercent.toFixed(1)}%`,
        ]);
      return `**${profile.name}** (${ms(profile.totalMs)} sampled, \`${profile.file}\`)\n\n${table(["function", "where", "self", "total"], rows)}`;
    })
    .join("\n\n");
}

/** Everything the run measured, as the Markdown that goes into BENCHMARKS.md and onto the terminal. */
export function renderResults(results: BenchResults): string {
  const parts: string[] = [];
  // Only the load before the run says whether others were busy: during it, the bench itself loads both cores.
  const load = results.machine.loadBefore[0] ?? 0;
  if (load >= 1) {
    parts.push(
      `> Measured on a busy machine (1-minute load average ${load} before the run): other work shared the ${results.machine.cpus} cores, so absolute figures are low and spreads wide; ratios taken in the same rounds hold better.`,
    );
  }
  parts.push(`### Targets\n\n${targetsTable(results)}`);
  if (results.edge) {
    parts.push(
      `### 1. Edge serving\n\nwrk, 2 threads, 50 keep-alive connections, ${results.edge.seconds} s per run, ${results.edge.rounds} rounds with the contenders in rotating order; no \`Accept-Encoding\`, so every server sends the identity body. *bare node* is node:http answering from memory with a static server's headers and nothing else: the ceiling of a Node edge on this machine. Medians; ± is half the range over the rounds; ratios are medians of the per-round ratios (range in brackets).\n\n${edgeTable(results.edge)}`,
    );
  }
  if (results.rules) {
    parts.push(
      `### 4. Edge with site rules\n\nOne server, benchmark 1's page and script on two sites: one without rules files, one with ${results.rules.redirectRules} \`_redirects\` rules (80 static, 20 with splats or placeholders, none matching the files) and ${results.rules.headerRules} \`_headers\` rules (3 headers on every path, a cache rule on the script). wrk as in benchmark 1, ${results.rules.seconds} s per run, ${results.rules.rounds} rounds with the sites in rotating order. *same target*: every request for the same URL (its route is remembered); *every target new*: each request adds a query string of its own, so every request is routed afresh through the rules.\n\n${rulesTable(results.rules)}`,
    );
  }
  if (results.deploy) {
    parts.push(
      `### 2. Deploy pipeline\n\nThe real client as it ships (\`node packages/client/dist/deploy.js <dir> --json\`, the npm package's one bundled file) against the real server (\`node dist/server/main.js\`), each its own process, on loopback; ${results.deploy.rounds} rounds, each with a fresh server data folder, a fresh client config folder and a fresh copy folder for the reference. Wall time from spawn to exit; peak RSS is the largest over the rounds (client: GNU time; server: VmHWM, reset before each step).\n\n${deployTable(results.deploy)}`,
    );
  }
  if (results.api) {
    parts.push(
      `### 3. API\n\nPrepare latency: one project, manifests of random hashes (all missing, so every entry is bucketed), ${results.api.rounds} rounds alternating the sizes, timed to the last byte of the answer. Load: ${results.api.loadRounds} rounds of ${results.api.loadSeconds} s each, create and prepare limits off (\`CREATE_LIMIT_PER_ADDRESS=0\`, \`CREATE_LIMIT_PER_FINGERPRINT=0\`, \`PREPARE_LIMIT_PER_PROJECT=0\`, \`PREPARE_LIMIT_PER_ADDRESS=0\`), request logging on as shipped. Abuse (issue 14): a fresh server with its limits as shipped; the edge's latency over ${results.api.abuse?.edgeDuringPrepare[1]?.prepareMs.length ?? 0} large prepares of each kind, counting only the requests sent while a prepare ran; then 40 connections each announcing a 32 MiB prepare body and sending all but its last byte, and the server's RSS once they have sent what they could.\n\n${apiTables(results.api)}`,
    );
  }
  if (results.attacks) {
    parts.push(
      `### 3b. Attacks (issue 31)\n\nEach attack from one client on loopback against a fresh server with the rate limits on prepare off (\`PREPARE_LIMIT_PER_PROJECT=0\`, \`PREPARE_LIMIT_PER_ADDRESS=0\`), so that only the bounds under test can stop it, and \`PROJECT_QUOTA_BYTES\` ${mb(Number(ATTACK_QUOTAS.PROJECT_QUOTA_BYTES))}, \`CLIENT_QUOTA_BYTES\` ${mb(Number(ATTACK_QUOTAS.CLIENT_QUOTA_BYTES))}. The edge's latency is measured from a worker thread over 8 keep-alive connections asking for a deployed page while the attack runs; the data directory's growth is the bytes of its files after the attack over before.\n\n${attackTable(results.attacks)}`,
    );
  }
  if (results.hash) parts.push(hashSection(results.hash));
  if (results.profiles && results.profiles.length > 0) {
    parts.push(`### Profiles (top self time)\n\n${profileTables(results.profiles)}`);
  }
  parts.push(`### Machine\n\n${machineTable(results.machine, results)}`);
  return parts.join("\n\n");
}
