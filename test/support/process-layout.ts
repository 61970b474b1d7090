import { startBalancer, type Balancer } from "./balancer.js";
import { type RoleUrls, type ServerProcess, spawnProcess } from "./server-process.js";
import { tempDir } from "./server.js";

/** One server process of the layout. */
export type LayoutProcess = ServerProcess<RoleUrls>;

/** The multi-process layout: two upload, two API and two edge processes, with balancers. */
export interface ProcessLayout {
  uploads: LayoutProcess[];
  /** Replaceable: a test that kills one starts another in its place with `start`. */
  apis: LayoutProcess[];
  edges: LayoutProcess[];
  /** The balancer in front of both API processes. */
  apiUrl: string;
  /** The settings an API process is started with (its upload balancer, its public edge port). */
  apiEnv: Record<string, string>;
  /** Starts one more process of `roles` on the shared settings, stopped with the layout. */
  start(roles: string, env?: Record<string, string>): Promise<LayoutProcess>;
  /** A temp folder removed with the layout. */
  dir(): string;
  /** Stops every process and balancer and removes the folders. */
  close(): Promise<void>;
}

/**
 * Starts the layout's six processes on `shared` settings (database, object store): the first
 * upload process alone, since it migrates and the others would wait on its lock.
 */
export async function startProcessLayout(shared: Record<string, string>): Promise<ProcessLayout> {
  const dirs: { path: string; cleanup(): void }[] = [];
  const processes: LayoutProcess[] = [];
  const balancers: Balancer[] = [];
  const dir = () => {
    const made = tempDir();
    dirs.push(made);
    return made.path;
  };
  const start = async (roles: string, env: Record<string, string> = {}) => {
    const started = await spawnProcess(dir(), { ...shared, ROLES: roles, ...env });
    processes.push(started);
    return started;
  };
  const close = async () => {
    await Promise.all(balancers.map((b) => b.close()));
    await Promise.all(processes.map((p) => p.stop()));
    for (const made of dirs) made.cleanup();
  };
  try {
    const uploads = [await start("upload"), await start("upload")];
    const uploadBalancer = await startBalancer(uploads.map((p) => p.urls.upload!));
    balancers.push(uploadBalancer);
    const apiEnv = { UPLOAD_PUBLIC_URL: uploadBalancer.url, PUBLIC_EDGE_PORT: "8080" };
    const apis = await Promise.all([start("api", apiEnv), start("api", apiEnv)]);
    const edges = await Promise.all([start("edge"), start("edge")]);
    const apiBalancer = await startBalancer(apis.map((p) => p.urls.api!));
    balancers.push(apiBalancer);
    return { uploads, apis, edges, apiUrl: apiBalancer.url, apiEnv, start, dir, close };
  } catch (error) {
    await close();
    throw error;
  }
}
