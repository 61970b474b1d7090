/** Text helpers for domain messages. */

/**
 * A value as it may appear in an error message: control characters escaped (JSON-style) and cut
 * to `max` characters, so a hostile input can neither flood a response nor forge its lines.
 */
export function quoteForMessage(value: string, max = 120): string {
  const printable = JSON.stringify(value).slice(1, -1);
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
