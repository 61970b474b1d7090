/** Pino's numeric levels, named as a person reads them. */
const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};
/** Fields every line has, shown in their own places or not at all. */
const FRAME = new Set(["level", "time", "msg", "pid", "hostname"]);

/**
 * One pino JSON line for a person at a terminal: `21:55:14.123 INFO  request completed
 * method=GET status=200 ms=3`, an error's stack indented below it. A line that is not JSON passes
 * as it is, so nothing pino writes is ever lost.
 */
export function formatLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  if (typeof record !== "object" || record === null) return `${line.trimEnd()}\n`;
  const time = typeof record.time === "number" ? new Date(record.time).toISOString().slice(11, 23) : "";
  const level = LEVELS[Number(record.level)] ?? String(record.level ?? "");
  const fields: string[] = [];
  let stack = "";
  for (const [key, value] of Object.entries(record)) {
    if (FRAME.has(key)) continue;
    if (key === "err" && typeof value === "object" && value !== null) {
      const { message, stack: trace } = value as { message?: unknown; stack?: unknown };
      fields.push(`err=${JSON.stringify(String(message ?? ""))}`);
      if (typeof trace === "string") stack = `\n${trace.replace(/^/gm, "    ")}`;
      continue;
    }
    fields.push(
      `${key}=${typeof value === "string" && !/[\s"=]/.test(value) ? value : JSON.stringify(value)}`,
    );
  }
  const msg = typeof record.msg === "string" ? record.msg : "";
  return `${[time, level, msg, ...fields].filter((part) => part !== "").join(" ")}${stack}\n`;
}

/** A pino destination that writes each line through `formatLogLine` to `out` (a terminal). */
export function prettyDestination(out: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write(chunk: string) {
      // pino writes one line a call; split anyway, so a batch never runs lines together.
      for (const line of chunk.split("\n")) if (line !== "") out.write(formatLogLine(line));
    },
  };
}
