import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assetHash } from "./lib/asset-hash.js";
import { createProject, postJson, prepareBody, uploadBucket } from "./lib/api-deploy.js";
import { machineInfo } from "./lib/machine.js";
import { cpuSeconds, mainThreadCpuSeconds } from "./lib/proc.js";
import { STORAGE_LIMITS_OFF, startServerProcess, type ServerProcess } from "./lib/server-process.js";
import { ratioSummary, rotate, summarize } from "./lib/stats.js";
import { loadavg } from "node:os";

// `npm run bench:upload-hash`: what hashing threads (UPLOAD_HASH_THREADS, issue 32 item 4) save
// the upload service's main thread. For each setting (0 = decode and hash on the main thread; 1; 2)
// a fresh server process receives the same sites' buckets, and the bench reads from /proc the CPU
// its main thread (the event loop) and the whole process spent on the uploads alone, per MB of
// content; rounds rotate the settings' order. Ratios are against 0, round by round.
// `--rounds=N` (default 3), `--threads=0,1,2`; `--blake3=wasm` runs the servers on the WebAssembly
// BLAKE3 (DEPLOY_BLAKE3=wasm: where the native module does not load), 4× slower to hash.

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [name, value = ""] = arg.replace(/^--/, "").split("=");
    return [name!, value];
  }),
);
const rounds = Number(args.get("rounds") || 3);
const settings = (args.get("threads") || "0,1,2").split(",").map(Number);
const blake3: Record<string, string> = args.get("blake3") === "wasm" ? { DEPLOY_BLAKE3: "wasm" } : {};
/** Buckets sent at once, as the client does. */
const PARALLEL_BUCKETS = 2;

interface SiteFile {
  path: string;
  bytes: Buffer;
  hash: string;
  size: number;
}

/** `count` files of `size` random (incompressible) bytes, hashed. */
async function site(count: number, size: number): Promise<{ files: SiteFile[]; mb: number }> {
  const files: SiteFile[] = [];
  for (let i = 0; i < count; i++) {
    const path = `/f/${i}.bin`;
    const bytes = randomBytes(size);
    files.push({ path, bytes, size, hash: await assetHash(bytes, path) });
  }
  return { files, mb: (count * size) / 1e6 };
}

const SITES = {
  "large files (128 × 384 KiB)": await site(128, 384 * 1024),
  "small files (6,000 × 4 KiB)": await site(6000, 4 * 1024),
};
const WARM_UP = await site(64, 16 * 1024);

/** Prepares `files` as a new project, then uploads the buckets asked for; returns the CPU the uploads cost. */
async function upload(server: ServerProcess, files: SiteFile[]) {
  const project = await createProject(server.urls.api);
  const prepared = await postJson(
    `${server.urls.api}/projects/${project.slug}/prepare`,
    prepareBody(project, files),
    project.token,
  );
  const plan = prepared.body as { uploadJwt: string; buckets: string[][]; urls: { upload: string } };
  if (prepared.status !== 200) throw new Error(`prepare answered ${prepared.status}`);
  const byHash = new Map(files.map((file) => [file.hash, file]));
  const queue = [...plan.buckets];
  const before = {
    main: mainThreadCpuSeconds(server.pid),
    all: cpuSeconds(server.pid),
    at: performance.now(),
  };
  await Promise.all(
    Array.from({ length: PARALLEL_BUCKETS }, async () => {
      for (let bucket; (bucket = queue.shift()) !== undefined;) {
        await uploadBucket(
          plan.urls.upload,
          plan.uploadJwt,
          bucket.map((hash) => byHash.get(hash)!),
        );
      }
    }),
  );
  return {
    mainCpu: mainThreadCpuSeconds(server.pid) - before.main,
    allCpu: cpuSeconds(server.pid) - before.all,
    wall: (performance.now() - before.at) / 1000,
  };
}

type Sample = { mainMsPerMb: number[]; allMsPerMb: number[]; mbPerSecond: number[] };
const samples = new Map<string, Map<number, Sample>>(
  Object.keys(SITES).map((name) => [
    name,
    new Map(settings.map((threads) => [threads, { mainMsPerMb: [], allMsPerMb: [], mbPerSecond: [] }])),
  ]),
);

const machine = machineInfo();
const root = mkdtempSync(join(tmpdir(), "bench-upload-hash-"));
try {
  for (let round = 0; round < rounds; round++) {
    for (const threads of rotate(settings, round)) {
      const server = await startServerProcess({
        dataDir: join(root, `r${round}-t${threads}`),
        env: { ...STORAGE_LIMITS_OFF, ...blake3, UPLOAD_HASH_THREADS: String(threads), LOG_LEVEL: "warn" },
      });
      try {
        await upload(server, WARM_UP.files);
        for (const [name, { files, mb }] of Object.entries(SITES)) {
          const cost = await upload(server, files);
          const sample = samples.get(name)!.get(threads)!;
          sample.mainMsPerMb.push((cost.mainCpu * 1000) / mb);
          sample.allMsPerMb.push((cost.allCpu * 1000) / mb);
          sample.mbPerSecond.push(mb / cost.wall);
        }
      } finally {
        await server.stop();
      }
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);
console.log(
  `upload hashing threads, BLAKE3 ${args.get("blake3") === "wasm" ? "WebAssembly" : "native"}, ` +
    `${rounds} rounds (settings rotated), ${new Date().toISOString()}, ` +
    `${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, load before ${machine.loadBefore.join(" ")}, ` +
    `after ${loadavg()
      .map((value) => fixed(value, 2))
      .join(" ")}`,
);
for (const [name, bySetting] of samples) {
  console.log(`${name}: medians (min–max); ratios against UPLOAD_HASH_THREADS=0, round by round`);
  const base = bySetting.get(settings[0]!)!;
  for (const [threads, sample] of bySetting) {
    const main = summarize(sample.mainMsPerMb);
    const all = summarize(sample.allMsPerMb);
    const rate = summarize(sample.mbPerSecond);
    let line =
      `  UPLOAD_HASH_THREADS=${threads}: main thread ${fixed(main.median)} ms CPU/MB (${fixed(main.min)}–${fixed(main.max)}), ` +
      `process ${fixed(all.median)} ms CPU/MB, ${fixed(rate.median)} MB/s`;
    if (sample !== base) {
      const mainRatio = ratioSummary(sample.mainMsPerMb, base.mainMsPerMb);
      const allRatio = ratioSummary(sample.allMsPerMb, base.allMsPerMb);
      const rateRatio = ratioSummary(sample.mbPerSecond, base.mbPerSecond);
      line +=
        `; main ×${fixed(mainRatio.median, 2)} (${fixed(mainRatio.min, 2)}–${fixed(mainRatio.max, 2)}), ` +
        `process ×${fixed(allRatio.median, 2)}, MB/s ×${fixed(rateRatio.median, 2)}`;
    }
    console.log(line);
  }
}
