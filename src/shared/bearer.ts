/** The token of an `Authorization: Bearer <token>` header, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
  return /^Bearer ([\x21-\x7e]{1,4096})$/i.exec(header ?? "")?.[1];
}
