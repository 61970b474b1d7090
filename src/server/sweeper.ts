import type { Logger } from "pino";
import { sweepExpired } from "../core/operations/index.js";
import type { Services } from "../core/operations/services.js";
import type { Metrics } from "../shared/observability/metrics.js";
import { timerDelayMs } from "../shared/timer-delay.js";

/** A turn lasts this share of the interval, so the holder's next tick finds it over despite timer jitter. */
const TURN_SHARE = 0.9;

/**
 * Runs the sweep every `intervalSeconds`; a sweep that outlasts the interval is not joined by
 * another. Processes sharing PostgreSQL take turns (`claimTurn`): one sweeps per interval, the
 * others skip, rather than every process sweeping at every interval; the sweep's lock (`tryRun`)
 * still keeps a sweep that outlasts its turn from overlapping the next one.
 */
export function startSweeper(
  services: Services,
  intervalSeconds: number,
  logger: Logger,
  metrics?: Metrics,
): { stop(): void } {
  let sweeping = false;
  const { locks } = services;
  // The result, or why this process did not sweep.
  const sweep = async () => {
    if (locks.claimTurn && !(await locks.claimTurn("sweep", intervalSeconds * 1000 * TURN_SHARE))) {
      return "another process's turn";
    }
    const result = await (locks.tryRun
      ? locks.tryRun("sweep", () => sweepExpired(services))
      : sweepExpired(services));
    return result ?? "another process is sweeping";
  };
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweep()
      .then(
        (result) => {
          if (typeof result === "string") return logger.debug(`sweep skipped: ${result}`);
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
  }, timerDelayMs(intervalSeconds));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
