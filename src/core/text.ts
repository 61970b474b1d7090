/** Text helpers for domain messages. */

/**
 * A value as it may appear in an error message: control characters escaped (JSON-style) and cut
 * to `max` characters, so a hostile input can neither flood a response nor forge its lines.
 */
export function quoteForMessage(value: string, max = 120): string {
  // Cut before escaping: a value of 30 MiB is not copied whole to show 120 characters of it.
  const head = value.length > max ? value.slice(0, max) : value;
  const printable = JSON.stringify(head).slice(1, -1);
  return printable.length > max || head.length < value.length ? `${printable.slice(0, max)}…` : printable;
}
