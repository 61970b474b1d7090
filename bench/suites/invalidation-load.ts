import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ApiProject, createProject, deployFiles } from "../lib/api-deploy.js";
import { runWrk } from "../lib/wrk.js";

/** Edge throughput over a warm set of sites while other sites are published at a given rate. */
export interface InvalidationFigure {
  /** Publishes a second asked for, and done during the load. */
  rate: number;
  /**
   * The control: the same publishes sent to another server process on its own database, whose
   * edge is not the one measured and tells it nothing: the machine does the same work, and what
   * the measured edge loses beyond this row is what its own publishes cost it.
   */
  elsewhere?: boolean;
  publishedPerSecond: number;
  rps: number;
  p99Ms: number;
  errors: number;
}

const WARM_SITES = 200;
/**
 * The other sites, republished in turn (as the issue's own measurement did: 30 sites republished
 * once a second). Republishing an existing project is a prepare, an upload and a deploy; a new
 * project each time added a fourth request and its creation limits, and the publisher reached
 * only 4 to 6.5 of the 10 a second asked for on two cores.
 */
const OTHER_SITES = 30;
/** Publishes in flight at most: enough for 10 a second while the edge's load slows each one. */
const PUBLISHERS = 8;
export const PUBLISH_RATES = [0, 1, 3, 10] as const;

function page(): Map<string, Buffer> {
  return new Map([
    ["/index.html", Buffer.from(`<h1>${randomBytes(8).toString("hex")}</h1>`.padEnd(2_000, " "))],
  ]);
}

/**
 * Issue 32: publishes 200 sites, then for each rate loads the edge with wrk over all of them in
 * turn (one 2 KB page each) while other sites are republished at that rate (none of the warm set
 * changes: only how the edge forgets is measured).
 */
export async function invalidationLoad(
  urls: { api: string; edge: string },
  work: string,
  seconds: number,
  controlApi?: string,
): Promise<InvalidationFigure[]> {
  const hosts: string[] = [];
  for (let i = 0; i < WARM_SITES; i++) hosts.push((await deployFiles(urls.api, page())).hostname);
  const others: ApiProject[] = [];
  for (let i = 0; i < OTHER_SITES; i++) others.push(await createProject(urls.api));
  const controls: ApiProject[] = [];
  for (let i = 0; controlApi !== undefined && i < OTHER_SITES; i++)
    controls.push(await createProject(controlApi));
  const steps: { rate: number; api: string; projects: ApiProject[]; elsewhere?: boolean }[] = [
    ...PUBLISH_RATES.map((rate) => ({ rate, api: urls.api, projects: others })),
    ...(controlApi === undefined ? [] : [{ rate: 10, api: controlApi, projects: controls, elsewhere: true }]),
  ];
  const hostsFile = join(work, "warm-hosts.txt");
  writeFileSync(hostsFile, `${hosts.join("\n")}\n`);
  const first = await runWrk({ url: `${urls.edge}/`, seconds: 2, hostsFile });
  if (first.errors > 0)
    throw new Error(`the edge answered ${first.errors} of ${first.requests} requests with errors`);
  const figures: InvalidationFigure[] = [];
  for (const { rate, api, projects, elsewhere } of steps) {
    const publisher = publishAt(api, rate, projects);
    const load = await runWrk({ url: `${urls.edge}/`, seconds, hostsFile });
    const published = await publisher.stop();
    if (load.errors > 0)
      throw new Error(`the edge answered ${load.errors} of ${load.requests} requests with errors`);
    figures.push({
      rate,
      ...(elsewhere ? { elsewhere } : {}),
      publishedPerSecond: published / load.seconds,
      rps: load.rps,
      p99Ms: load.p99Ms,
      errors: load.errors,
    });
  }
  return figures;
}

/** Republishes one of `others` with a new page every 1/rate s (PUBLISHERS at once at most) until stopped. */
function publishAt(apiUrl: string, rate: number, others: readonly ApiProject[]): { stop(): Promise<number> } {
  let done = 0;
  let failed: unknown;
  let stopped = false;
  const running = new Set<Promise<void>>();
  const started = performance.now();
  let due = 0;
  const tick = () => {
    if (stopped) return;
    const wanted = Math.floor(((performance.now() - started) / 1000) * rate) + 1;
    while (due < wanted && running.size < PUBLISHERS) {
      const project = others[due++ % others.length]!;
      const deploy = deployFiles(apiUrl, page(), project).then(
        () => void done++,
        (error: unknown) => void (failed ??= error),
      );
      running.add(deploy);
      void deploy.then(() => running.delete(deploy));
    }
    timer = setTimeout(tick, 20);
  };
  let timer: NodeJS.Timeout | undefined = rate > 0 ? setTimeout(tick, 0) : undefined;
  return {
    async stop() {
      // Those done while the load ran; the ones still running finish outside it.
      const during = done;
      stopped = true;
      clearTimeout(timer);
      await Promise.all(running);
      if (failed !== undefined) throw failed;
      return during;
    },
  };
}
