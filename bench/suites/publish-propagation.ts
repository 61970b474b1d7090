import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { deployFiles, type ApiProject } from "../lib/api-deploy.js";
import { httpGet } from "../lib/http-get.js";
import { STORAGE_LIMITS_OFF, startServerProcess } from "../lib/server-process.js";
import { percentile } from "../lib/stats.js";

/** How long after the API's answer a publish shows on an edge of another process (issue 32). */
export interface PropagationFigure {
  publishes: number;
  /** Of the first requests sent after each answer, how many got the old page: same process, other. */
  staleFirstSame: number;
  staleFirstOther: number;
  /** From the answer to the first request that got the new page, on the other process's edge. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Two processes with every role on one PostgreSQL schema and one object store: the first
 * publishes a one-page site again and again (the same project), and after each answer both edges
 * are asked for the page until it is the new one.
 */
export async function publishPropagation(options: {
  work: string;
  env: Record<string, string>;
  publishes: number;
}): Promise<PropagationFigure> {
  const env = {
    LOG_LEVEL: "warn",
    CREATE_LIMIT_PER_ADDRESS: "0",
    CREATE_LIMIT_PER_FINGERPRINT: "0",
    PREPARE_LIMIT_PER_PROJECT: "0",
    PREPARE_LIMIT_PER_ADDRESS: "0",
    ...STORAGE_LIMITS_OFF,
    ...options.env,
  };
  const writer = await startServerProcess({ dataDir: join(options.work, "writer"), env });
  const reader = await startServerProcess({ dataDir: join(options.work, "reader"), env }).catch(
    async (error: unknown) => {
      await writer.stop();
      throw error;
    },
  );
  try {
    let project: ApiProject | undefined;
    let hostname = "";
    const waits: number[] = [];
    let staleFirstSame = 0;
    let staleFirstOther = 0;
    for (let i = 0; i < options.publishes; i++) {
      const marker = randomBytes(8).toString("hex");
      const page = new Map([["/index.html", Buffer.from(`<h1>${marker}</h1>`)]]);
      const done = await deployFiles(writer.urls.api, page, project);
      project = done.project;
      hostname = done.hostname;
      const answered = performance.now();
      const shows = async (edge: string) =>
        (await httpGet(edge, hostname, "/")).body.toString().includes(marker);
      if (!(await shows(writer.urls.edge))) staleFirstSame++;
      let first = true;
      while (!(await shows(reader.urls.edge))) {
        if (first) staleFirstOther++;
        first = false;
        if (performance.now() - answered > 10_000) throw new Error(`publish ${i} not seen in 10 s`);
      }
      waits.push(performance.now() - answered);
    }
    return {
      publishes: options.publishes,
      staleFirstSame,
      staleFirstOther,
      p50Ms: percentile(waits, 0.5),
      p99Ms: percentile(waits, 0.99),
      maxMs: Math.max(...waits),
    };
  } finally {
    await reader.stop();
    await writer.stop();
  }
}
