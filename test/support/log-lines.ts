import { type Logger, pino } from "pino";

/** One JSON line pino wrote, parsed: its level, `msg` and the fields the caller gave it. */
export type LogLine = Record<string, unknown> & { level: number; msg?: string };

/**
 * A pino logger at `level` that keeps each line it writes, parsed, in `lines`: what the server
 * logs can be read back by a test instead of going to stdout.
 */
export function capturingLogger(level: pino.LevelWithSilent = "debug"): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

/** pino's numbers for the levels the server writes at. */
export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;
