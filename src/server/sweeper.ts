import type { Logger } from "pino";
import { sweepExpired } from "../core/operations/index.js";
import type { Services } from "../core/operations/services.js";

/** Runs the sweep every `intervalSeconds`; a sweep that outlasts the interval is not joined by another. */
export function startSweeper(services: Services, intervalSeconds: number, logger: Logger): { stop(): void } {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweepExpired(services)
      .then(
        (result) => logger.debug(result, "sweep"),
        (error: unknown) => logger.error({ err: error }, "sweep failed"),
      )
      .finally(() => {
        sweeping = false;
      });
  }, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
