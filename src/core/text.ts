/** Small text helpers for messages and headers. */

/**
 * A value as it may appear in an error message: control characters escaped (JSON-style) and cut
 * to `max` characters, so a hostile input can neither flood a response nor forge its lines.
 */
export function quoteForMessage(value: string, max = 120): string {
  const printable = JSON.stringify(value).slice(1, -1);
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
  return /^Bearer ([\x21-\x7e]{1,4096})$/i.exec(header ?? "")?.[1];
}
