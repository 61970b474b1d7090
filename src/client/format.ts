/** Bytes for people: 512 B, 1.5 KiB, 25.0 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A duration for people: 850ms, 4.2s, 3m05s. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/** A count with thousands separators: 1,024. */
export function formatCount(value: number): string {
  // Integers by hand: the first toLocaleString call loads ICU data, ~10 ms of a short run.
  if (!Number.isSafeInteger(value)) return value.toLocaleString("en-US");
  return String(value).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** A count and a noun, plural when needed: "1 file", "1,024 files". */
export function plural(value: number, noun: string): string {
  return `${formatCount(value)} ${noun}${value === 1 ? "" : "s"}`;
}

/** An ISO 8601 time for people, the one format of the client's output: `2026-11-24 12:05 UTC`. */
export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
