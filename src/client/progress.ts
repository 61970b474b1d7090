import { formatBytes, formatCount, formatDuration } from "./format.js";
import type { OutputStream } from "./io.js";

/**
 * Progress of a run on stderr: a live line on a terminal, plain lines otherwise. A phase is either
 * a step (one request or a wait: its name and the time it has taken) or a counted phase (hashing,
 * uploading: files and bytes, the rate and an ETA once the rate is known).
 */
export interface Progress {
  /** A phase without counts (creating the project, preparing, publishing). */
  step(label: string): void;
  start(label: string, totalFiles: number, totalBytes: number): void;
  /** Files and bytes done (negative when a failed attempt's are taken back). */
  advance(files: number, bytes: number): void;
  /** Words after the counts (what the phase is waiting for), or undefined for none. */
  status(text: string | undefined): void;
  /** Ends the phase with a summary line. */
  finish(summary: string): void;
  /** A line of its own (a retry, a warning), kept above the live line. */
  note(message: string): void;
  /** Ends whatever phase is shown, leaving no line: before the result goes to stdout, or a failure. */
  done(): void;
}

/** A repeating timer; returns what stops it. Injected by tests, `setInterval` (unref'd) otherwise. */
export type Ticker = (tick: () => void, everyMs: number) => () => void;

const REDRAW_MS = 100;
const PLAIN_EVERY_MS = 5000;
/** The rate (and so the ETA) is shown only once bytes have moved for this long: before, it is noise. */
export const RATE_KNOWN_AFTER_MS = 1000;

const intervalTicker: Ticker = (tick, everyMs) => {
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * A reporter on `stream`; `live` redraws one line in place (for terminals), every 100 ms while a
 * phase runs, so a phase shows at once and a slow request never looks like a hang.
 */
export function createProgress(
  stream: OutputStream,
  live: boolean,
  now: () => number = () => Date.now(),
  ticker: Ticker = intervalTicker,
): Progress {
  let label = "";
  let counted = false;
  let files = 0;
  let bytes = 0;
  let totalFiles = 0;
  let totalBytes = 0;
  let startedAt = 0;
  let firstBytesAt: number | undefined;
  let statusText: string | undefined;
  let lastDraw = 0;
  let drawn = false;
  let stopTicker: (() => void) | undefined;

  const rateSuffix = (at: number): string => {
    if (firstBytesAt === undefined || at - firstBytesAt < RATE_KNOWN_AFTER_MS || bytes <= 0) return "";
    const rate = (bytes / (at - firstBytesAt)) * 1000;
    const left = totalBytes - bytes;
    const eta = left > 0 && statusText === undefined ? ` · ETA ${formatDuration((left / rate) * 1000)}` : "";
    return ` · ${formatBytes(rate)}/s${eta}`;
  };
  const line = (at: number): string => {
    const took = formatDuration(at - startedAt);
    if (!counted) return `${label}… ${took}`;
    const fraction = totalBytes > 0 ? bytes / totalBytes : totalFiles > 0 ? files / totalFiles : 1;
    const bar = live ? `${renderBar(fraction, 20)} ` : "";
    const status = statusText === undefined ? "" : ` · ${statusText}… ${took}`;
    return (
      `${label.padEnd(9)} ${bar}${formatCount(files)}/${formatCount(totalFiles)} files · ` +
      `${formatBytes(bytes)}/${formatBytes(totalBytes)}${rateSuffix(at)}${status}`
    );
  };
  const clear = () => {
    if (live && drawn) stream.write("\r\x1b[2K");
    drawn = false;
  };
  const draw = (force: boolean) => {
    if (label === "") return;
    const at = now();
    if (!force && at - lastDraw < (live ? REDRAW_MS : PLAIN_EVERY_MS)) return;
    lastDraw = at;
    if (live) {
      const width = Math.max(20, (stream.columns || 100) - 1);
      stream.write(`\r\x1b[2K${line(at).slice(0, width)}`);
      drawn = true;
    } else if (counted) {
      stream.write(`${line(at)}\n`);
    }
  };
  const begin = (name: string, isCounted: boolean) => {
    clear();
    label = name;
    counted = isCounted;
    files = 0;
    bytes = 0;
    statusText = undefined;
    firstBytesAt = undefined;
    startedAt = now();
    lastDraw = startedAt;
    if (!live) return;
    draw(true);
    stopTicker ??= ticker(() => draw(false), REDRAW_MS);
  };
  const end = () => {
    clear();
    label = "";
    stopTicker?.();
    stopTicker = undefined;
  };

  return {
    step(name) {
      begin(name, false);
    },
    start(name, fileCount, byteCount) {
      totalFiles = fileCount;
      totalBytes = byteCount;
      begin(name, true);
    },
    advance(fileDelta, byteDelta) {
      files += fileDelta;
      bytes += byteDelta;
      if (firstBytesAt === undefined && bytes > 0) firstBytesAt = now();
      draw(false);
    },
    status(text) {
      if (text === statusText) return;
      statusText = text;
      if (live) draw(true);
    },
    finish(summary) {
      end();
      stream.write(`${summary}\n`);
    },
    note(message) {
      clear();
      stream.write(`${message}\n`);
      if (live && label !== "") draw(true);
    },
    done: end,
  };
}

/** A text bar of `width` cells filled to `fraction`. */
export function renderBar(fraction: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}
