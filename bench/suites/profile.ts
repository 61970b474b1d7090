import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createProject, deployFiles, prepareBody } from "../lib/api-deploy.js";
import { runClient } from "../lib/client-run.js";
import { summarizeProfile } from "../lib/cpuprofile.js";
import { STORAGE_LIMITS_OFF, startServerProcess, type ServerProcess } from "../lib/server-process.js";
import { generateSite } from "../lib/site-generator.js";
import type { ProfileSummary } from "../lib/types.js";
import { runWrk } from "../lib/wrk.js";
import type { SiteSpec } from "../options.js";
import { manifestEntries } from "./api-load.js";
import { servedFiles } from "./edge-files.js";

export interface ProfileOptions {
  workDir: string;
  /** Where the .cpuprofile files are kept (open them in Chrome DevTools or speedscope as flame graphs). */
  outDir: string;
  /** The edge file to hammer: the one furthest from its target. */
  edgeFile: string;
  site: SiteSpec;
  /** An existing site folder of that size, when benchmark 2 made one. */
  siteDir: string | undefined;
  prepareEntries: number;
  loadManifestFiles: number;
  log: (line: string) => void;
}

const CPU_PROF = (dir: string) => ["--cpu-prof", `--cpu-prof-dir=${dir}`];

/**
 * Profiles the slowest path of each benchmark with `node --cpu-prof`, in processes of their own
 * after the measurements (the profiler slows what it watches): the edge serving one file, the
 * client and the server during a first deploy, the server answering a large prepare and the
 * 50-file prepare under load. Returns the top of each profile.
 */
export async function runProfiles(options: ProfileOptions): Promise<ProfileSummary[]> {
  rmSync(options.outDir, { recursive: true, force: true });
  const summaries: ProfileSummary[] = [];
  const collect = (dir: string, label: string) => {
    // Node names them CPU.<date>.<time>.<pid>.<thread id>.<sequence>.cpuprofile; thread 0 is the main one.
    for (const file of readdirSync(dir)
      .filter((name) => name.endsWith(".cpuprofile"))
      .sort()) {
      const thread = Number(file.split(".")[4]);
      const name = thread > 0 ? `${label}, worker thread ${thread}` : label;
      summaries.push(summarizeProfile(join(dir, file), name));
    }
  };
  const profiledServer = async (
    label: string,
    env: Record<string, string> = {},
    dataDir = join(options.workDir, `${label}-data`),
  ): Promise<[ServerProcess, string]> => {
    const dir = join(options.outDir, label);
    mkdirSync(dir, { recursive: true });
    return [await startServerProcess({ dataDir, env, nodeArgs: CPU_PROF(dir) }), dir];
  };

  {
    const [server, dir] = await profiledServer("edge-server", { LOG_LEVEL: "warn" });
    try {
      const files = servedFiles();
      const { hostname } = await deployFiles(
        server.urls.api,
        new Map(files.map((file) => [file.path, file.bytes])),
      );
      const file = files.find((candidate) => candidate.label === options.edgeFile) ?? files[0]!;
      await runWrk({ url: server.urls.edge + file.url, seconds: 5, headers: { Host: hostname } });
      options.log(`profile: edge serving ${file.label}`);
    } finally {
      await server.stop();
    }
    collect(dir, `edge serving ${options.edgeFile}`);
  }
  {
    const siteDir = options.siteDir ?? join(options.workDir, "site");
    if (options.siteDir === undefined) generateSite(siteDir, options.site.files, options.site.bytes, 7);
    // Both deploys share the server's data and the client's config; each gets its own profiles.
    const dataDir = join(options.workDir, "deploy-data");
    const configDir = join(options.workDir, "client-config");
    // The redeploy's server listens where the first one did: the folder's project file names its API.
    let ports: Record<string, string> = {};
    for (const step of ["first deploy", "unchanged redeploy"]) {
      const slug = step.split(" ")[0]!;
      const [server, serverDir] = await profiledServer(`deploy-${slug}-server`, ports, dataDir);
      ports = {
        PORT: new URL(server.urls.api).port,
        UPLOAD_PORT: new URL(server.urls.upload).port,
        EDGE_PORT: new URL(server.urls.edge).port,
      };
      const clientDir = join(options.outDir, `deploy-${slug}-client`);
      mkdirSync(clientDir, { recursive: true });
      try {
        const run = await runClient({
          dir: siteDir,
          apiUrl: server.urls.api,
          configDir,
          scratch: options.workDir,
          nodeArgs: CPU_PROF(clientDir),
        });
        options.log(
          `profile: ${step} of ${options.site.name}: ${run.wallMs.toFixed(0)} ms under the profiler`,
        );
      } finally {
        await server.stop();
      }
      collect(serverDir, `server, ${step} of ${options.site.name}`);
      collect(clientDir, `client, ${step} of ${options.site.name}`);
    }
  }
  {
    const [server, dir] = await profiledServer("api-prepare-server", STORAGE_LIMITS_OFF);
    try {
      const project = await createProject(server.urls.api);
      const body = prepareBody(project, manifestEntries(options.prepareEntries));
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${server.urls.api}/projects/${project.slug}/prepare`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${project.token}` },
          body,
        });
        await response.arrayBuffer();
      }
      options.log(`profile: 3 prepares of ${options.prepareEntries} entries`);
    } finally {
      await server.stop();
    }
    collect(dir, `server, prepare of ${options.prepareEntries} entries`);
  }
  {
    const [server, dir] = await profiledServer("api-load-server", {
      PREPARE_LIMIT_PER_PROJECT: "0",
      PREPARE_LIMIT_PER_ADDRESS: "0",
      ...STORAGE_LIMITS_OFF,
    });
    try {
      const project = await createProject(server.urls.api);
      const bodyFile = join(options.workDir, "prepare-load.json");
      writeFileSync(bodyFile, prepareBody(project, manifestEntries(options.loadManifestFiles)));
      await runWrk({
        url: `${server.urls.api}/projects/${project.slug}/prepare`,
        seconds: 5,
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${project.token}` },
        bodyFile,
      });
      options.log(`profile: ${options.loadManifestFiles}-file prepare under load`);
    } finally {
      await server.stop();
    }
    collect(dir, `server, ${options.loadManifestFiles}-file prepare under load`);
  }
  return summaries;
}
