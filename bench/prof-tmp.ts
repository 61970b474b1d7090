import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { assetHash } from "./lib/asset-hash.js";
import { createProject, postJson, prepareBody, uploadBucket } from "./lib/api-deploy.js";
import { summarizeProfile } from "./lib/cpuprofile.js";
import { STORAGE_LIMITS_OFF, startServerProcess } from "./lib/server-process.js";
const threads = process.argv[2] ?? "0";
const files = [];
for (let i = 0; i < 128; i++) { const bytes = randomBytes(384 * 1024); const path = `/f/${i}.bin`; files.push({ path, bytes, size: bytes.length, hash: await assetHash(bytes, path) }); }
const dir = `/tmp/hw/prof/t${threads}`;
const server = await startServerProcess({ dataDir: join(dir, "data"), env: { ...STORAGE_LIMITS_OFF, UPLOAD_HASH_THREADS: threads, LOG_LEVEL: "warn" }, nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
for (let r = 0; r < 3; r++) {
  const project = await createProject(server.urls.api);
  const prepared = await postJson(`${server.urls.api}/projects/${project.slug}/prepare`, prepareBody(project, files), project.token);
  const plan = prepared.body as { uploadJwt: string; buckets: string[][]; urls: { upload: string } };
  const byHash = new Map(files.map((f) => [f.hash, f]));
  for (const bucket of plan.buckets) await uploadBucket(plan.urls.upload, plan.uploadJwt, bucket.map((h) => byHash.get(h)!));
}
await server.stop();
const profile = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).sort()[0]!;
console.log(JSON.stringify(summarizeProfile(join(dir, profile), `t${threads}`, 25), null, 1));
