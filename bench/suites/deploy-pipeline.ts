import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runClient, type ClientRun } from "../lib/client-run.js";
import { runChecked, runTimed } from "../lib/proc.js";
import { rsyncTo, startRsyncDaemon } from "../lib/rsync.js";
import { startServerProcess } from "../lib/server-process.js";
import { changeFiles, generateSite, type GeneratedSite } from "../lib/site-generator.js";
import { ratioSummary, summarize } from "../lib/stats.js";
import type { DeployResult, DeploySiteResult, DeployStepResult } from "../lib/types.js";
import type { SiteSpec } from "../options.js";

// The client's project file (src/client/local/project-file.ts), which the first deploy of a folder writes.
const PROJECT_FILE = ".static-deploy.json";

export interface DeployOptions {
  workDir: string;
  rounds: number;
  sites: SiteSpec[];
  changedShare: number;
  log: (line: string) => void;
}

type Step = DeployStepResult["step"];
const STEPS: readonly Step[] = ["first", "unchanged", "changed"];

interface StepRun {
  client: ClientRun;
  serverPeak: number | undefined;
  /** Files in the server's data folder after the step, databases included. */
  filesOnDisk: number;
}

/** Where benchmark 2 generates the site of `spec`. */
export function siteDirOf(workDir: string, spec: SiteSpec): string {
  return join(workDir, `site-${spec.files}`);
}

/**
 * Benchmark 2: the real client as it ships (`packages/client/dist/deploy.js`) against the real server, each its own process, on
 * loopback. Each round starts a server on a fresh data folder (so a first deploy uploads everything)
 * and gives the client a fresh config folder; the reference `cp -r` + `sync` copies into a fresh
 * folder in the same round. Nothing is deleted until every round is done.
 */
export async function runDeployPipeline(options: DeployOptions): Promise<DeployResult> {
  const sites: DeploySiteResult[] = [];
  for (const [index, spec] of options.sites.entries()) {
    const siteDir = siteDirOf(options.workDir, spec);
    const site = generateSite(siteDir, spec.files, spec.bytes, 1000 + index);
    await runChecked("sync", []);
    options.log(`deploy: generated ${spec.name} (${(site.totalBytes / 1e6).toFixed(0)} MB) in ${siteDir}`);
    sites.push(await measureSite(options, spec, site, index));
  }
  return { rounds: options.rounds, sites };
}

async function measureSite(
  options: DeployOptions,
  spec: SiteSpec,
  site: GeneratedSite,
  index: number,
): Promise<DeploySiteResult> {
  const { log } = options;
  const reference: number[] = [];
  const rsyncUnchanged: number[] = [];
  const runs = new Map<Step, StepRun[]>(STEPS.map((step) => [step, []]));
  let changedFiles = 0;
  for (let round = 0; round < options.rounds; round++) {
    const roundDir = join(options.workDir, `s${index}-r${round}`);
    mkdirSync(roundDir, { recursive: true });
    // Each round's server is new, so its first deploy makes a new project: the project file the
    // last round's first deploy wrote (linking the folder to that server) goes, as in a fresh folder.
    forgetProject(site.dir);
    const copy = async () => {
      await runChecked("sync", []);
      const ms = await copyAndSync(site.dir, join(roundDir, "copy"));
      reference.push(ms);
      log(`deploy: ${spec.name} round ${round + 1}/${options.rounds} cp -r + sync: ${ms.toFixed(0)} ms`);
    };
    // The reference goes first in even rounds and last in odd ones.
    if (round % 2 === 0) await copy();
    rsyncUnchanged.push(await rsyncNothingToSend(site.dir, join(roundDir, "rsync")));
    log(
      `deploy: ${spec.name} round ${round + 1}/${options.rounds} rsync, nothing to send: ${rsyncUnchanged.at(-1)!.toFixed(0)} ms`,
    );
    const server = await startServerProcess({ dataDir: join(roundDir, "server-data") });
    try {
      const configDir = join(roundDir, "client-config");
      for (const step of STEPS) {
        if (step === "changed") changedFiles = changeFiles(site, options.changedShare, round);
        await runChecked("sync", []);
        server.resetPeak();
        const client = await runClient({
          dir: site.dir,
          apiUrl: server.urls.api,
          configDir,
          scratch: roundDir,
        });
        const run = {
          client,
          serverPeak: server.peakRss(),
          filesOnDisk: countFiles(join(roundDir, "server-data")),
        };
        runs.get(step)!.push(run);
        log(
          `deploy: ${spec.name} round ${round + 1}/${options.rounds} ${step}: ${client.wallMs.toFixed(0)} ms, ` +
            `${client.summary.uploaded} uploaded, client ${mb(client.peakRss)}, server ${mb(run.serverPeak)}`,
        );
      }
    } finally {
      await server.stop();
      forgetProject(site.dir);
    }
    if (round % 2 === 1) await copy();
  }
  return {
    name: spec.name,
    files: site.files.length,
    bytes: site.totalBytes,
    changedFiles,
    reference: { wallMs: summarize(reference) },
    rsyncUnchanged: { wallMs: summarize(rsyncUnchanged) },
    steps: STEPS.map((step) =>
      stepResult(
        step,
        runs.get(step)!,
        step === "unchanged" ? rsyncUnchanged : undefined,
        reference,
        site.files.length,
      ),
    ),
  };
}

/** Removes the client's project file from the site folder, so the next deploy starts a project. */
function forgetProject(siteDir: string): void {
  rmSync(join(siteDir, PROJECT_FILE), { force: true });
}

function stepResult(
  step: Step,
  runs: StepRun[],
  rsync: number[] | undefined,
  reference: number[],
  files: number,
): DeployStepResult {
  const wallMs = summarize(runs.map((run) => run.client.wallMs));
  const optional = (values: (number | undefined)[]) =>
    values.every((value): value is number => value !== undefined) ? summarize(values) : undefined;
  return {
    step,
    wallMs,
    filesPerSecond: files / (wallMs.median / 1000),
    overReference: ratioSummary(
      runs.map((run) => run.client.wallMs),
      reference,
    ),
    clientPeakRss: optional(runs.map((run) => run.client.peakRss)),
    serverPeakRss: optional(runs.map((run) => run.serverPeak)),
    uploaded: runs.map((run) => run.client.summary.uploaded),
    filesOnDisk: summarize(runs.map((run) => run.filesOnDisk)),
    ...(rsync
      ? {
          overRsync: ratioSummary(
            runs.map((run) => run.client.wallMs),
            rsync,
          ),
        }
      : {}),
  };
}

/** `cp -r` of the site into a fresh folder, then `sync`: every byte read once and durably written once. */
async function copyAndSync(from: string, to: string): Promise<number> {
  const started = performance.now();
  const copy = await runTimed("cp", ["-r", from, to]);
  if (copy.code !== 0) throw new Error(`cp failed: ${copy.stderr}`);
  await runChecked("sync", []);
  return performance.now() - started;
}

/**
 * The reference for a redeploy that finds nothing changed: a local rsync daemon holding the site
 * already (sent untimed first), then `rsync -a` again, timed: every file's size and time compared
 * over a socket, nothing sent.
 */
async function rsyncNothingToSend(siteDir: string, workDir: string): Promise<number> {
  const daemon = await startRsyncDaemon(join(workDir, "dest"), workDir);
  try {
    await rsyncTo(siteDir, daemon);
    await runChecked("sync", []);
    return await rsyncTo(siteDir, daemon);
  } finally {
    await daemon.stop();
  }
}

/** How many files a folder holds, at any depth. */
function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length;
}

function mb(bytes: number | undefined): string {
  return bytes === undefined ? "?" : `${(bytes / 1e6).toFixed(0)} MB`;
}
