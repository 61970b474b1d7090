/**
 * The `Link: <…>; rel="canonical"` field a site's other hostnames send (contract §7). The request
 * path goes in as a URI reference (RFC 3986 §4.1): what a path may hold unencoded stays as it is,
 * a well-formed `%XX` is kept, and every other character (`<`, `>`, `"`, a space, a stray `%`) is
 * percent-encoded, so a request can never close the `<…>` and append a link of its own.
 */

// Unreserved, sub-delimiters, `:`, `@` and `/`: the characters of a path (RFC 3986 §3.3), or an escape.
const KEPT = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]+|%[0-9A-Fa-f]{2}/y;

/** `rawPath` as it may stand in a URI: its own valid characters and escapes kept, the rest encoded. */
export function encodeUriPath(rawPath: string): string {
  let out = "";
  let i = 0;
  while (i < rawPath.length) {
    KEPT.lastIndex = i;
    const kept = KEPT.exec(rawPath);
    if (kept) {
      out += kept[0];
      i += kept[0].length;
      continue;
    }
    const char = String.fromCodePoint(rawPath.codePointAt(i)!);
    for (const byte of Buffer.from(char, "utf8"))
      out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    i += char.length;
  }
  return out;
}

/** The field's value for a site whose canonical origin is `canonicalUrl` (ending in `/`), at `rawPath`. */
export function canonicalLink(canonicalUrl: string, rawPath: string): string {
  return `<${canonicalUrl}${encodeUriPath(rawPath).slice(1)}>; rel="canonical"`;
}
