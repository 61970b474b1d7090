import { readFileSync } from "node:fs";
import { availableParallelism, loadavg, release, totalmem } from "node:os";
import type { MachineInfo } from "./types.js";

/** The CPU model as /proc/cpuinfo names it. */
export function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    return match?.[1]?.trim() ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** The machine's facts now; `loadAfter` is filled in at the end of the run. */
export function machineInfo(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpuModel(),
    memoryBytes: totalmem(),
    node: process.version,
    kernel: release(),
    loadBefore: loadavg().map((value) => Math.round(value * 100) / 100),
    loadAfter: [],
  };
}
