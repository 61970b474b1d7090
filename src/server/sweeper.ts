import type { Logger } from "pino";
import { sweepExpired } from "../core/operations/index.js";
import type { Services } from "../core/operations/services.js";
import type { Metrics } from "../shared/observability/metrics.js";

/** Runs the sweep every `intervalSeconds`; a sweep that outlasts the interval is not joined by another. */
export function startSweeper(
  services: Services,
  intervalSeconds: number,
  logger: Logger,
  metrics?: Metrics,
): { stop(): void } {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    // Processes sharing PostgreSQL take turns: one sweeps, the others find the lock held and skip.
    const sweep = services.locks.tryRun
      ? services.locks.tryRun("sweep", () => sweepExpired(services))
      : sweepExpired(services);
    sweep
      .then(
        (result) => {
          if (result === undefined) return logger.debug("sweep skipped: another process is sweeping");
          logger.debug(result, "sweep");
          metrics?.sweeps.inc({ result: "ok" });
          metrics?.reclaimedBytes.inc(result.bytesFreed);
        },
        (error: unknown) => {
          logger.error({ err: error }, "sweep failed");
          metrics?.sweeps.inc({ result: "failed" });
        },
      )
      .finally(() => {
        sweeping = false;
      });
  }, intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
