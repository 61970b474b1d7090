/** An element that must be escaped inside a quoted element of an array literal. */
const SPECIAL = /["\\]/;

/**
 * The text of a PostgreSQL array literal of `values` (strings, numbers, null or undefined as
 * NULL), for a parameter cast to an array type: `{"a","b",NULL}`. Every element is quoted, so a
 * string may hold anything (a comma, a brace, `NULL`); a quote or backslash is escaped by a
 * backslash. Built by one join when no element needs more, which is the common case (hashes,
 * paths, sizes).
 */
export function arrayLiteral(values: readonly unknown[]): string {
  let plain = true;
  for (const value of values) {
    if (typeof value === "number") continue;
    if (typeof value !== "string" || SPECIAL.test(value)) {
      plain = false;
      break;
    }
  }
  if (plain) return values.length === 0 ? "{}" : `{"${values.join('","')}"}`;
  return `{${values.map(element).join(",")}}`;
}

function element(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number") return `"${value}"`;
  if (typeof value !== "string")
    throw new TypeError(`an array literal holds strings and numbers, not ${typeof value}`);
  return `"${value.replace(/[\\"]/g, (special) => `\\${special}`)}"`;
}
