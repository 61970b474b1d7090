import { join } from "node:path";
import { createProject, deployFiles, type ApiProject } from "../lib/api-deploy.js";
import { assetHash } from "../lib/asset-hash.js";
import { completeDeploy, folderBytes, postBucket, prepare } from "../lib/attack-flow.js";
import { edgeLatenciesDuring } from "../lib/edge-poller.js";
import { currentRss } from "../lib/proc.js";
import { startServerProcess, type ServerProcess } from "../lib/server-process.js";
import { percentile } from "../lib/stats.js";
import type { AttackResult } from "../lib/types.js";

const MIB = 1024 * 1024;
/** The quotas this suite runs with: small enough that "until refused" ends within a minute. */
export const ATTACK_QUOTAS = { PROJECT_QUOTA_BYTES: String(64 * MIB), CLIENT_QUOTA_BYTES: String(256 * MIB) };
/**
 * What the data directory may hold beyond CLIENT_QUOTA_BYTES after H3 + H4: the database's
 * write-ahead log and free pages, which the quota does not count (they are reused, not added to).
 */
export const ATTACK_OVERHEAD_BYTES = 64 * MIB;
/** Bounds on the attacks themselves, so that an undefended server still lets the bench finish. */
const REQUEST_TIMEOUT_MS = 120_000;
const MAX_DEPLOYS = 300;
const MAX_PROJECTS = 8;

export interface AttackOptions {
  workDir: string;
  /** Paths of H1's manifest, all naming one 1-byte file (the issue's 100,000). */
  h1Paths: number;
  /** Copies of H1's one part in one bucket (the issue's 2,000). */
  h1Copies: number;
  /** Paths of each H3 preview (the issue's 20,000). */
  h3Paths: number;
  log: (line: string) => void;
}

/**
 * Issue 31's attacks, each from one client on loopback against a server with its rate limits on
 * prepare off (only the bounds under test may stop it): the edge's latency while each runs, what
 * the server answered, and what the data directory and the resident memory grew by.
 */
export async function runAttacks(options: AttackOptions): Promise<AttackResult[]> {
  const server = await startServerProcess({
    dataDir: join(options.workDir, "attack-data"),
    env: {
      PREPARE_LIMIT_PER_PROJECT: "0",
      PREPARE_LIMIT_PER_ADDRESS: "0",
      MIN_FREE_BYTES: "0",
      ...ATTACK_QUOTAS,
    },
  });
  try {
    const { hostname } = await deployFiles(
      server.urls.api,
      new Map([["/index.html", Buffer.from(`<h1>${"still here ".repeat(200)}</h1>`)]]),
    );
    const one = Buffer.from("x");
    const hash = await assetHash(one, "/a.txt");
    const paths = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, i) => ({ path: `/${prefix}/${i}.txt`, hash, size: 1 }));
    const attacks: [string, () => Promise<string>][] = [
      [
        `H1: a bucket repeating one part ${options.h1Copies.toLocaleString("en-US")} times, ` +
          `${options.h1Paths.toLocaleString("en-US")} paths naming it`,
        async () => {
          const project = await createProject(server.urls.api);
          const prepared = await prepare(server.urls.api, project, paths(options.h1Paths, "h1"));
          if (!prepared.plan) return `prepare ${prepared.status} ${prepared.code ?? ""}`;
          const part = { hash, base64: one.toString("base64") };
          const copies = Array.from({ length: options.h1Copies }, () => part);
          const answer = await postBucket(
            prepared.plan.urls.upload,
            prepared.plan.uploadJwt,
            copies,
            REQUEST_TIMEOUT_MS,
          );
          return `prepare 200, bucket ${answer.status}${answer.code ? ` (${answer.code})` : ""}`;
        },
      ],
      [
        "H2: a prepare with one path of 1 MiB",
        async () => {
          const project = await createProject(server.urls.api);
          const long = [{ path: `/${"p".repeat(MIB)}.txt`, hash, size: 1 }];
          const prepared = await prepare(server.urls.api, project, long);
          return `prepare ${prepared.status} ${prepared.code ?? ""}`.trim();
        },
      ],
      [
        `H3 + H4: previews of ${options.h3Paths.toLocaleString("en-US")}-path manifests, into new projects, until refused`,
        () => previewsUntilRefused(server, paths(options.h3Paths, "h3"), one),
      ],
    ];
    const results: AttackResult[] = [];
    for (const [name, attack] of attacks) {
      const bytesBefore = folderBytes(server.dataDir);
      const rssBefore = currentRss(server.pid);
      let outcome = "";
      const started = performance.now();
      const waits = await edgeLatenciesDuring(server.urls.edge, hostname, 8, async () => {
        outcome = await attack();
      });
      const result: AttackResult = {
        name,
        outcome,
        seconds: (performance.now() - started) / 1000,
        requests: waits.length,
        p99Ms: percentile(waits, 0.99),
        // A loop, not Math.max(...waits): over some 120,000 waits the spread overflows the stack.
        maxMs: waits.reduce((max, wait) => Math.max(max, wait), 0),
        dataDirGrowthBytes: folderBytes(server.dataDir) - bytesBefore,
        rssGrowthBytes: currentRss(server.pid) - rssBefore,
      };
      options.log(
        `api: ${name}: ${outcome}; edge max ${result.maxMs.toFixed(1)} ms over ${result.requests} requests; ` +
          `data +${(result.dataDirGrowthBytes / MIB).toFixed(1)} MiB in ${result.seconds.toFixed(1)} s`,
      );
      results.push(result);
    }
    return results;
  } finally {
    await server.stop();
  }
}

/**
 * One client: a project, previews of `entries` (one 1-byte file) until the server refuses, then
 * the next project, until a create is refused or MAX_PROJECTS; says how far it got.
 */
async function previewsUntilRefused(
  server: ServerProcess,
  entries: { path: string; hash: string; size: number }[],
  content: Buffer,
): Promise<string> {
  let deploys = 0;
  let projects = 0;
  const refusals = new Map<string, number>();
  const refused = (what: string) => refusals.set(what, (refusals.get(what) ?? 0) + 1);
  for (; projects < MAX_PROJECTS && deploys < MAX_DEPLOYS; projects++) {
    let project: ApiProject;
    try {
      project = await createProject(server.urls.api);
    } catch (error) {
      refused(`create: ${(error as Error).message.slice(0, 60)}`);
      break;
    }
    while (deploys < MAX_DEPLOYS) {
      const prepared = await prepare(server.urls.api, project, entries);
      if (!prepared.plan) {
        refused(`prepare ${prepared.status} ${prepared.code ?? ""}`.trim());
        break;
      }
      let jwt = prepared.plan.uploadJwt;
      if (prepared.plan.buckets.length > 0) {
        const part = { hash: entries[0]!.hash, base64: content.toString("base64") };
        const answer = await postBucket(prepared.plan.urls.upload, jwt, [part], REQUEST_TIMEOUT_MS);
        if (!answer.jwt) {
          refused(`bucket ${answer.status}`);
          break;
        }
        jwt = answer.jwt;
      }
      const deployed = await completeDeploy(
        server.urls.api,
        project,
        prepared.plan.deployId,
        jwt,
        deploys > 0,
      );
      if (deployed.status !== 200) {
        refused(`deploy ${deployed.status} ${deployed.code ?? ""}`.trim());
        break;
      }
      deploys++;
    }
  }
  const said = [...refusals].map(([what, count]) => `${count} × ${what}`).join(", ");
  return `${deploys} deploys in ${projects} projects; refused: ${said || "never"}`;
}
