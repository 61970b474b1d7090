import { formatBytes, formatCount, formatDuration } from "./format.js";
import type { OutputStream } from "./io.js";

/** Progress of one phase (hashing, uploading) on stderr: a live bar on a terminal, plain lines otherwise. */
export interface Progress {
  start(label: string, totalFiles: number, totalBytes: number): void;
  advance(files: number, bytes: number): void;
  /** Ends the phase with a summary line. */
  finish(summary: string): void;
  /** A line of its own (a retry, a warning), kept above the bar. */
  note(message: string): void;
}

const REDRAW_MS = 100;
const PLAIN_EVERY_MS = 5000;

/** A reporter on `stream`; `live` draws a bar that redraws in place (for terminals). */
export function createProgress(stream: OutputStream, live: boolean, now = () => Date.now()): Progress {
  let label = "";
  let files = 0;
  let bytes = 0;
  let totalFiles = 0;
  let totalBytes = 0;
  let startedAt = 0;
  let lastDraw = 0;
  let drawn = false;

  const line = () => {
    const elapsed = Math.max(1, now() - startedAt);
    const rate = (bytes / elapsed) * 1000;
    const left = totalBytes - bytes;
    const eta = rate > 0 && bytes > 0 && left > 0 ? ` · ETA ${formatDuration((left / rate) * 1000)}` : "";
    const fraction = totalBytes > 0 ? bytes / totalBytes : totalFiles > 0 ? files / totalFiles : 1;
    const bar = live ? `${renderBar(fraction, 20)} ` : "";
    return (
      `${label.padEnd(9)} ${bar}${formatCount(files)}/${formatCount(totalFiles)} files · ` +
      `${formatBytes(bytes)}/${formatBytes(totalBytes)} · ${formatBytes(rate)}/s${eta}`
    );
  };
  const clear = () => {
    if (live && drawn) stream.write("\r\x1b[2K");
    drawn = false;
  };
  const draw = (force: boolean) => {
    const at = now();
    if (!force && at - lastDraw < (live ? REDRAW_MS : PLAIN_EVERY_MS)) return;
    lastDraw = at;
    if (live) {
      const width = Math.max(20, (stream.columns || 100) - 1);
      stream.write(`\r\x1b[2K${line().slice(0, width)}`);
      drawn = true;
    } else {
      stream.write(`${line()}\n`);
    }
  };

  return {
    start(name, fileCount, byteCount) {
      label = name;
      files = 0;
      bytes = 0;
      totalFiles = fileCount;
      totalBytes = byteCount;
      startedAt = now();
      lastDraw = startedAt;
      if (live) draw(true);
    },
    advance(fileDelta, byteDelta) {
      files += fileDelta;
      bytes += byteDelta;
      draw(false);
    },
    finish(summary) {
      clear();
      label = "";
      stream.write(`${summary}\n`);
    },
    note(message) {
      clear();
      stream.write(`${message}\n`);
      if (live && label !== "") draw(true);
    },
  };
}

/** A text bar of `width` cells filled to `fraction`. */
export function renderBar(fraction: number, width: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`;
}
