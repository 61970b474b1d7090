import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";

/** A child process started by the bench, with a promise of its exit. */
export interface Child {
  process: ChildProcess;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Where stdout and stderr go (the file is emptied first); default: discarded. */
  logFile?: string;
}

/** Starts a long-running child with its output in a file, so reading it costs the bench nothing. */
export function startChild(command: string, args: readonly string[], options: StartOptions = {}): Child {
  const fd = options.logFile === undefined ? "ignore" : openSync(options.logFile, "w");
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", fd, fd],
  });
  if (typeof fd === "number") closeSync(fd);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  if (child.pid === undefined) throw new Error(`cannot start ${command}`);
  return { process: child, pid: child.pid, exited };
}

/** Stops a child with `signal`, then SIGKILL if it is still there after `graceMs`. */
export async function stopChild(
  child: Child,
  signal: NodeJS.Signals = "SIGTERM",
  graceMs = 15_000,
): Promise<void> {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill(signal);
  const timer = setTimeout(() => child.process.kill("SIGKILL"), graceMs);
  try {
    await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

export interface RunResult {
  code: number | null;
  ms: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and times it from spawn to exit, as a person at a shell would see it. */
export function runTimed(
  command: string,
  args: readonly string[],
  options: StartOptions = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({
        code,
        ms: performance.now() - started,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
  });
}

/** Runs a command and throws with its output unless it exits 0. */
export async function runChecked(
  command: string,
  args: readonly string[],
  options: StartOptions = {},
): Promise<RunResult> {
  const result = await runTimed(command, args, options);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.code}:\n${result.stderr || result.stdout}`);
  }
  return result;
}

/** The peak resident memory of a live process in bytes (Linux VmHWM), or undefined when unreadable. */
export function peakRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resets a process's peak resident memory to its current one (Linux clear_refs 5); false if not allowed. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until something accepts connections on 127.0.0.1:`port`. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The resident memory of a live process now, in bytes (Linux VmRSS). */
export function currentRss(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

// Kernel clock ticks per second, the unit of /proc/<pid>/stat's CPU times (100 on Linux here).
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/**
 * CPU seconds (user and system, every thread) a live process and its live descendants have used,
 * from /proc: what a server spent, whatever else the machine was doing (a nginx master and its
 * worker, a Node process and its worker threads). A process that is gone counts nothing.
 */
export function cpuSeconds(pid: number): number {
  let ticks = 0;
  const visit = (id: number): void => {
    try {
      // Fields after the command's closing parenthesis: state is 3rd, utime 14th, stime 15th.
      const stat = readFileSync(`/proc/${id}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
      for (const task of readdirSync(`/proc/${id}/task`)) {
        const children = readFileSync(`/proc/${id}/task/${task}/children`, "utf8").trim();
        for (const child of children ? children.split(" ") : []) visit(Number(child));
      }
    } catch {
      // Gone between two reads: it has nothing more to count.
    }
  };
  visit(pid);
  return ticks / CLOCK_TICKS;
}

/**
 * CPU seconds (user and system) the main thread of a live process has used: in Node, the thread
 * of the event loop, without its worker threads (a thread's /proc/<pid>/task/<tid>/stat; the main
 * thread's id is the process's).
 */
export function mainThreadCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
