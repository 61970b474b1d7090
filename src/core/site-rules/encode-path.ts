/**
 * Percent-encodes a decoded site path for a Location header, segment by segment, leaving the
 * characters RFC 3986 allows in a path segment as they are.
 */
export function encodePath(path: string): string {
  return path
    .split("/")
    .map((segment) =>
      encodeURIComponent(segment).replace(/%(21|24|26|27|28|29|2A|2B|2C|3B|3D|3A|40)/gi, (escaped) =>
        decodeURIComponent(escaped),
      ),
    )
    .join("/");
}
