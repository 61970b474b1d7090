import type { BenchResults } from "../lib/types.js";
import { ATTACK_OVERHEAD_BYTES, ATTACK_QUOTAS } from "../suites/api-attacks.js";
import { mb, ms, times } from "./format.js";
import { hashTargets } from "./hash-tables.js";

/** One target of the issue, and how the run measured against it. */
export interface TargetCheck {
  benchmark: string;
  what: string;
  target: string;
  measured: string;
  met: boolean;
}

const MEMORY_LIMIT = 250e6;

/** The edge's target against nginx for a file (issue 32): ≥ 0.9× for small files, ≥ 1.5× at 1 MB. */
export function edgeTarget(file: string): number {
  return file.startsWith("1 MB") ? 1.5 : 0.9;
}

/** Checks every target the run has figures for (issue 4's targets). */
export function checkTargets(results: BenchResults): TargetCheck[] {
  const checks: TargetCheck[] = [];
  for (const file of results.edge?.files ?? []) {
    const big = file.file.startsWith("1 MB");
    const want = edgeTarget(file.file);
    checks.push({
      benchmark: "edge",
      what: `${file.file}: edge / nginx`,
      target: `≥ ${want}×`,
      measured: times(file.edgeOverNginx.median),
      met: file.edgeOverNginx.median >= want,
    });
    if (big) {
      checks.push({
        benchmark: "edge",
        what: `${file.file}: edge / sirv`,
        target: "≥ 3.5×",
        measured: times(file.edgeOverSirv.median),
        met: file.edgeOverSirv.median >= 3.5,
      });
    }
  }
  for (const row of results.rules?.rows ?? []) {
    checks.push({
      benchmark: "rules",
      what: `${row.file}, ${row.workload}: with 100 redirect and 20 header rules / without`,
      target: "≥ 0.9×",
      measured: times(row.withOverWithout.median),
      met: row.withOverWithout.median >= 0.9,
    });
  }
  const sites = results.deploy?.sites ?? [];
  // The 10,000-file site carries issue 4's ratios; the 50,000-file one issue 9's per-file targets.
  const tenThousand =
    sites.find((site) => site.files === 10_000) ?? sites.find((site) => site.files < 50_000);
  const ratioTargets = { first: 2, unchanged: 0.25, changed: 0.35 } as const;
  for (const step of tenThousand?.steps ?? []) {
    checks.push({
      benchmark: "deploy",
      what: `${tenThousand!.name}, ${step.step} deploy / (cp -r + sync)`,
      target: `≤ ${ratioTargets[step.step]}×`,
      measured: `${times(step.overReference.median)} (${ms(step.wallMs.median)} vs ${ms(tenThousand!.reference.wallMs.median)})`,
      met: step.overReference.median <= ratioTargets[step.step],
    });
  }
  const many = sites.find((site) => site.files >= 50_000);
  if (many) {
    const first = many.steps.find((step) => step.step === "first")!;
    checks.push({
      benchmark: "deploy",
      what: `${many.name}, first deploy / (cp -r + sync)`,
      target: "≤ 2×",
      measured: `${times(first.overReference.median)} (${ms(first.wallMs.median)} vs ${ms(many.reference.wallMs.median)})`,
      met: first.overReference.median <= 2,
    });
    const unchanged = many.steps.find((step) => step.step === "unchanged")!;
    if (unchanged.overRsync && many.rsyncUnchanged) {
      checks.push({
        benchmark: "deploy",
        what: `${many.name}, unchanged deploy / rsync finding nothing to send`,
        target: "≤ 1×",
        measured: `${times(unchanged.overRsync.median)} (${ms(unchanged.wallMs.median)} vs ${ms(many.rsyncUnchanged.wallMs.median)})`,
        met: unchanged.overRsync.median <= 1,
      });
    }
    if (first.filesOnDisk) {
      // Buckets hold at most 2,000 files and 50 MiB of base64: the fewest a first deploy can take.
      const buckets = Math.max(
        Math.ceil(many.files / 2000),
        Math.ceil((many.bytes * 4) / 3 / (50 * 1024 * 1024)),
      );
      checks.push({
        benchmark: "deploy",
        what: `${many.name}, files in the server's data folder after the first deploy`,
        target: `≤ ${buckets} buckets + 8`,
        measured: `${Math.round(first.filesOnDisk.median).toLocaleString("en-US")} (6 of them the two databases)`,
        met: first.filesOnDisk.median <= buckets + 8,
      });
    }
  }
  for (const side of ["client", "server"] as const) {
    const peaks = sites.flatMap((site) =>
      site.steps.map((step) => (side === "client" ? step.clientPeakRss : step.serverPeakRss)?.max),
    );
    const known = peaks.filter((peak): peak is number => peak !== undefined);
    if (known.length === 0) continue;
    const worst = Math.max(...known);
    checks.push({
      benchmark: "deploy",
      what: `peak memory of the ${side}, any site, any step`,
      target: "< 250 MB",
      measured: mb(worst),
      met: worst < MEMORY_LIMIT,
    });
  }
  const prepare = results.api?.prepare ?? [];
  const biggest = prepare[prepare.length - 1];
  if (biggest && results.api) {
    checks.push({
      benchmark: "api",
      what: `prepare of ${biggest.entries.toLocaleString("en-US")} entries`,
      target: "< 2 s",
      measured: ms(biggest.ms.median),
      met: biggest.ms.median < 2000,
    });
    checks.push({
      benchmark: "api",
      what: "prepare cost per entry, largest manifest over smallest",
      target: "≤ 1.25 (linear)",
      measured: results.api.growthPerEntry.toFixed(2),
      met: results.api.growthPerEntry <= 1.25,
    });
  }
  const abuse = results.api?.abuse;
  if (abuse) {
    const during = abuse.edgeDuringPrepare.filter((cell) => cell.prepareMs.length > 0);
    if (during.length > 0) {
      const worst = during.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a));
      checks.push({
        benchmark: "api",
        what: `edge p99 during a prepare (worst: ${worst.name})`,
        target: "< 100 ms",
        measured: `${ms(worst.p99Ms)} (max ${ms(worst.maxMs)})`,
        met: worst.p99Ms < 100,
      });
    }
    for (const cell of abuse.heldBodies.filter((held) => !held.withToken)) {
      const growth = cell.rssAfterBytes - cell.rssBeforeBytes;
      checks.push({
        benchmark: "api",
        what: `server RSS growth, ${cell.name}`,
        target: "< +100 MB",
        measured: `+${mb(growth)}`,
        met: growth < 100e6,
      });
    }
  }
  for (const attack of results.attacks ?? []) {
    checks.push({
      benchmark: "api",
      what: `edge worst wait during ${attack.name.split(":")[0]}`,
      target: "< 100 ms",
      measured: ms(attack.maxMs),
      met: attack.maxMs < 100,
    });
  }
  const previews = results.attacks?.find((attack) => attack.name.startsWith("H3"));
  if (previews) {
    const bound = Number(ATTACK_QUOTAS.CLIENT_QUOTA_BYTES) + ATTACK_OVERHEAD_BYTES;
    checks.push({
      benchmark: "api",
      what: "data directory growth from one client (H3 + H4)",
      target: `≤ CLIENT_QUOTA_BYTES + ${mb(ATTACK_OVERHEAD_BYTES)} (${mb(bound)})`,
      measured: `+${mb(previews.dataDirGrowthBytes)} (${previews.outcome})`,
      // Under the bound only because the bench stopped sending is not a defence.
      met: previews.dataDirGrowthBytes <= bound && !previews.outcome.endsWith("refused: never"),
    });
  }
  checks.push(...hashTargets(results.hash));
  return checks;
}
