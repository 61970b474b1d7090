import { type ChildProcess, spawn } from "node:child_process";

/** A program a test runs beside the service (caddy, pebble), with everything it printed. */
export interface ToolProcess {
  child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends SIGTERM and waits for it to be gone. */
  stop(): Promise<void>;
}

/**
 * Starts `command` with its output kept in memory; it is killed with the test worker if a failure
 * or a timeout leaves it running.
 */
export function startTool(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): ToolProcess {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  child.once("exit", () => process.off("exit", reap));
  return {
    child,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
