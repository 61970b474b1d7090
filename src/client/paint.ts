import type { OutputStream } from "./io.js";

/** Styles for text on a terminal; each returns the text unchanged when colour is off. */
export interface Paint {
  bold(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

const style =
  (open: number, close: number) =>
  (text: string): string =>
    `\u001b[${open}m${text}\u001b[${close}m`;

/** No colour: for pipes, files, NO_COLOR and --json. */
export const PLAIN: Paint = {
  bold: (text) => text,
  green: (text) => text,
  yellow: (text) => text,
  red: (text) => text,
  dim: (text) => text,
};

const COLOURED: Paint = {
  bold: style(1, 22),
  green: style(32, 39),
  yellow: style(33, 39),
  red: style(31, 39),
  dim: style(2, 22),
};

/**
 * Colour for what goes to `stream`: on only when it is a terminal, NO_COLOR is unset or empty
 * (no-color.org) and TERM is not `dumb`.
 */
export function paintFor(stream: OutputStream, env: Readonly<Record<string, string | undefined>>): Paint {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== "";
  return stream.isTTY === true && !noColor && env.TERM !== "dumb" ? COLOURED : PLAIN;
}
