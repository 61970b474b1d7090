/** Text helpers for domain messages and for measuring text. */

/**
 * The most bytes of UTF-8 one UTF-16 code unit of a string takes (a surrogate pair, two units, is
 * four bytes): `string.length * MAX_UTF8_PER_UNIT` bounds its UTF-8 length without measuring it.
 */
export const MAX_UTF8_PER_UNIT = 3;

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
