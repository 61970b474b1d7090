import type { Logger } from "pino";
import type { SelfHostedPlatform } from "../platform/selfhost/index.js";

/**
 * Lets go of the copies this process keeps of packs another process deleted (ranges of an object
 * store on its disk, open files): once at start (a restart finds what was deleted while it was
 * down) and then every `intervalSeconds`, so a deleted site's bytes leave every process's disk
 * within a sweep interval. A run still going when the interval comes round is not joined.
 */
export function startPackExpiry(
  platform: SelfHostedPlatform,
  intervalSeconds: number,
  logger: Logger,
): { stop(): void } {
  let running = false;
  const run = (): void => {
    if (running) return;
    running = true;
    platform
      .forgetDeletedPacks()
      .then(
        (packs) => {
          if (packs > 0) logger.info({ packs }, "let go of the local copies of deleted packs");
        },
        (error: unknown) => logger.error({ err: error }, "checking for deleted packs failed"),
      )
      .finally(() => {
        running = false;
      });
  };
  run();
  const timer = setInterval(run, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
