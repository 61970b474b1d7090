import type { Logger } from "pino";
import type { SelfHostedPlatform } from "../platform/selfhost/index.js";
import { timerDelayMs } from "../shared/timer-delay.js";

/**
 * Lets go of the copies this process keeps of content another process deleted (ranges of an
 * object store's packs on its disk, open pack files, compressed variants): once at start (a
 * restart finds what was deleted while it was down) and then every `intervalSeconds`, so a
 * deleted site's bytes leave every process's disk within a sweep interval. A run still going when the interval comes round is not joined.
 */
export function startContentExpiry(
  platform: SelfHostedPlatform,
  intervalSeconds: number,
  logger: Logger,
): { stop(): void } {
  let running = false;
  const run = (): void => {
    if (running) return;
    running = true;
    platform
      .forgetDeletedContent()
      .then(
        (forgotten) => {
          if (forgotten.packs + forgotten.variants > 0)
            logger.info(forgotten, "let go of the local copies of deleted content");
        },
        (error: unknown) => logger.error({ err: error }, "checking for deleted content failed"),
      )
      .finally(() => {
        running = false;
      });
  };
  run();
  const timer = setInterval(run, timerDelayMs(intervalSeconds));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
