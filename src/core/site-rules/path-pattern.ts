/**
 * The path patterns `_redirects` and `_headers` share (Netlify's and Cloudflare Pages' syntax): a
 * literal path, `:name` placeholders that match one segment, and at most one `*` splat that matches
 * the rest, even across segments. A pattern without either is static and is looked up in a map.
 */

const PLACEHOLDER = /:([A-Za-z][A-Za-z0-9_]*)/g;
/** Whether a text names a placeholder (`:name`, `:splat`). */
export const HAS_PLACEHOLDER = /:[A-Za-z]/;
const ESCAPE = /[.*+?^${}()|[\]\\]/g;

/** A parsed pattern: a static path (trailing slash dropped) or a regular expression with its names. */
export type PathPattern =
  { kind: "static"; key: string } | { kind: "dynamic"; source: string; names: string[] };

/** The names a pattern binds (`splat` for its `*`), or why it is not one. */
export function patternNames(pattern: string): string[] | string {
  if (!pattern.startsWith("/")) return `"${pattern}" must be a path starting with /`;
  const splats = pattern.split("*").length - 1;
  if (splats > 1) return `"${pattern}" has ${splats} splats (*); a pattern may have one`;
  const matches = [...pattern.matchAll(PLACEHOLDER)];
  for (const match of matches) {
    // A placeholder is a whole segment: then each one's match is fixed by the slashes around it,
    // and no pattern can make matching a long path take more than linear time (`/:a-:b-:c` could).
    const end = match.index + match[0].length;
    if (pattern[match.index - 1] !== "/" || (end < pattern.length && pattern[end] !== "/")) {
      return `":${match[1]}" in "${pattern}" must be a whole path segment (/:${match[1]}/)`;
    }
  }
  const names = matches.map((match) => match[1]!);
  const seen = new Set<string>();
  for (const name of names) {
    if (name === "splat") return `":splat" cannot be a placeholder name in "${pattern}"; use *`;
    if (seen.has(name)) return `placeholder ":${name}" appears twice in "${pattern}"`;
    seen.add(name);
  }
  return splats === 1 ? [...names, "splat"] : names;
}

/** The path a static pattern and a request path are both reduced to: no trailing slash but `/`. */
export function staticKey(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** Compiles a pattern that `patternNames` accepted; it matches decoded paths, so it is decoded too. */
export function compilePattern(written: string): PathPattern {
  const pattern = decodedPattern(written);
  if (!pattern.includes("*") && !HAS_PLACEHOLDER.test(pattern))
    return { kind: "static", key: staticKey(pattern) };
  const names: string[] = [];
  let source = "";
  let last = 0;
  // Placeholders and the splat in order; the text between them is literal.
  for (const match of pattern.matchAll(/:([A-Za-z][A-Za-z0-9_]*)|\*/g)) {
    source += pattern.slice(last, match.index).replace(ESCAPE, "\\$&");
    if (match[0] === "*") {
      names.push("splat");
      source += "(.*)";
    } else {
      names.push(match[1]!);
      source += "([^/]+)";
    }
    last = match.index + match[0].length;
  }
  source += pattern.slice(last).replace(ESCAPE, "\\$&");
  // As for static rules, a trailing slash is optional in the request.
  if (!pattern.endsWith("*") && !pattern.endsWith("/")) source += "/?";
  return { kind: "dynamic", source: `^${source}$`, names };
}

/** A pattern with its percent-encoding decoded (`/caf%C3%A9` is `/café`), or as written if malformed. */
function decodedPattern(pattern: string): string {
  if (!pattern.includes("%")) return pattern;
  try {
    return decodeURIComponent(pattern);
  } catch {
    return pattern;
  }
}

/** The placeholders (`:name`, `:splat`) a target uses that the source does not bind. */
export function unboundNames(target: string, names: string[]): string[] {
  // In an absolute URL, `:` after the scheme and before a port is not a placeholder.
  const path = target.replace(/^https?:\/\/[^/]*/i, "");
  return [...path.matchAll(PLACEHOLDER)].map((match) => match[1]!).filter((name) => !names.includes(name));
}

/** Fills a target's placeholders with what the source matched (each value passed through `encode`). */
export function fillTarget(
  target: string,
  values: ReadonlyMap<string, string>,
  encode: (value: string) => string,
): string {
  if (values.size === 0) return target;
  return target.replace(PLACEHOLDER, (whole, name: string) => {
    const value = values.get(name);
    return value === undefined ? whole : encode(value);
  });
}
