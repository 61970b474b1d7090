import { encodePath } from "./encode-path.js";
import { compilePattern, fillTarget, HAS_PLACEHOLDER, staticKey } from "./path-pattern.js";
import type { HeaderRule, RedirectRule, RedirectStatus, SiteRules } from "./rule-types.js";

/** A path pattern ready to test: a static key, or a regular expression and the names it binds. */
type Matcher = { key: string } | { regex: RegExp; names: string[] };

/** Rules of one kind: static sources in a map, dynamic ones in file order; first match wins. */
interface RuleSet {
  statics: Map<string, { index: number; rule: RedirectRule }>;
  dynamics: { index: number; regex: RegExp; names: string[]; rule: RedirectRule }[];
}

/** Where a 3xx rule sends a request: its status and the Location (percent-encoded). */
export interface RuleRedirect {
  kind: "redirect";
  status: Exclude<RedirectStatus, 200>;
  location: string;
}

/** What `_headers` does to one path: headers to set (lowercase names) and names to remove. */
export interface HeaderChanges {
  set: Map<string, string>;
  remove: Set<string>;
}

const NO_VALUES: ReadonlyMap<string, string> = new Map();

/**
 * A revision's rules compiled for the edge, once per revision: static sources are looked up in a
 * map (one probe, whatever the number of rules), dynamic ones (at most 100) are tried in order,
 * and only those written before the static match, so "first match wins" holds across both.
 * Paths are decoded site paths; a trailing slash is optional in the request.
 */
export class CompiledRules {
  private readonly redirects: RuleSet;
  private readonly rewrites: RuleSet;
  /** `fills`: a value of the rule names a placeholder, so what its pattern matched is needed. */
  private readonly headers: { matcher: Matcher; rule: HeaderRule; fills: boolean }[];

  constructor(rules: SiteRules) {
    this.redirects = ruleSet(rules.redirects.filter((rule) => rule.status !== 200));
    this.rewrites = ruleSet(rules.redirects.filter((rule) => rule.status === 200));
    this.headers = rules.headers.map((rule) => ({
      matcher: matcherOf(rule.path),
      rule,
      fills: rule.set.some(([, value]) => HAS_PLACEHOLDER.test(value)),
    }));
  }

  /** True when the revision has no rule at all (the edge then skips every lookup). */
  get empty(): boolean {
    return (
      this.headers.length === 0 &&
      this.redirects.statics.size + this.redirects.dynamics.length === 0 &&
      this.rewrites.statics.size + this.rewrites.dynamics.length === 0
    );
  }

  /**
   * The first 3xx rule matching `path`; `query` (with its `?`, or "") is kept when the target has
   * none. A `raw` path is the request's still-encoded one (a path no file can have: an encoded
   * slash, an empty segment): what it matched goes into the target as sent, and runs of slashes
   * in a site path target are made one, as Cloudflare does.
   */
  redirectFor(path: string, query: string, raw = false): RuleRedirect | undefined {
    const found = firstMatch(this.redirects, path);
    if (!found) return undefined;
    // A literal target may hold what a header cannot carry (`/café`, a space): encoded, as a browser would.
    let location = fillTarget(found.rule.to, found.values, raw ? keep : encodePath).replace(
      /[^\x21-\x7e]+/g,
      (text) => encodeURIComponent(text),
    );
    if (raw && location.startsWith("/")) location = location.replace(/\/{2,}/g, "/");
    if (query !== "" && !location.includes("?")) {
      const hash = location.indexOf("#");
      location = hash === -1 ? location + query : location.slice(0, hash) + query + location.slice(hash);
    }
    return { kind: "redirect", status: found.rule.status as Exclude<RedirectStatus, 200>, location };
  }

  /** The (decoded) site path the first 200 rule matching `path` serves instead, or undefined. */
  rewriteFor(path: string): string | undefined {
    const found = firstMatch(this.rewrites, path);
    if (!found) return undefined;
    const target = fillTarget(found.rule.to, found.values, (value) => value);
    return target.replace(/[?#].*$/s, "");
  }

  /**
   * What every `_headers` rule matching `path` sets and removes, `:name` and `:splat` in a value
   * filled with what the rule's pattern matched (as Cloudflare does); undefined when none matches.
   * A `raw` path (see `redirectFor`) fills them as sent.
   */
  headersFor(path: string, raw = false): HeaderChanges | undefined {
    let changes: HeaderChanges | undefined;
    for (const { matcher, rule, fills } of this.headers) {
      // Most rules fill nothing: a plain test then, no match array and no map of values.
      const values = fills ? matchValues(matcher, path) : matches(matcher, path) ? NO_VALUES : undefined;
      if (values === undefined) continue;
      changes ??= { set: new Map(), remove: new Set() };
      // In file order, a rule's removals before its sets (as Cloudflare applies them): `! Name`
      // takes away what the edge and the rules before it set; a later rule may set it again.
      for (const name of rule.remove) {
        changes.set.delete(name);
        changes.remove.add(name);
      }
      for (const [name, written] of rule.set) {
        // Encoded, as Cloudflare fills them from the request's path: a header carries no `é`.
        const value = fillTarget(written, values, raw ? keep : encodePath);
        const earlier = changes.set.get(name);
        changes.set.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
        changes.remove.delete(name);
      }
    }
    return changes;
  }
}

function matcherOf(pattern: string): Matcher {
  const compiled = compilePattern(pattern);
  return compiled.kind === "static"
    ? { key: compiled.key }
    : { regex: new RegExp(compiled.source, "s"), names: compiled.names };
}

function matches(matcher: Matcher, path: string): boolean {
  return "key" in matcher ? matcher.key === staticKey(path) : matcher.regex.test(path);
}

/** What a matcher binds in `path` (none for a static one), or undefined when it does not match. */
function matchValues(matcher: Matcher, path: string): ReadonlyMap<string, string> | undefined {
  if ("key" in matcher) return matcher.key === staticKey(path) ? NO_VALUES : undefined;
  const match = matcher.regex.exec(path);
  if (!match) return undefined;
  if (matcher.names.length === 0) return NO_VALUES;
  const values = new Map<string, string>();
  matcher.names.forEach((name, i) => values.set(name, match[i + 1] ?? ""));
  return values;
}

const keep = (value: string): string => value;

function ruleSet(rules: RedirectRule[]): RuleSet {
  const set: RuleSet = { statics: new Map(), dynamics: [] };
  rules.forEach((rule, index) => {
    const compiled = compilePattern(rule.from);
    if (compiled.kind === "static") {
      if (!set.statics.has(compiled.key)) set.statics.set(compiled.key, { index, rule });
    } else {
      set.dynamics.push({ index, regex: new RegExp(compiled.source, "s"), names: compiled.names, rule });
    }
  });
  return set;
}

function firstMatch(
  set: RuleSet,
  path: string,
): { rule: RedirectRule; values: ReadonlyMap<string, string> } | undefined {
  const fixed = set.statics.size === 0 ? undefined : set.statics.get(staticKey(path));
  const before = fixed ? fixed.index : Infinity;
  for (const dynamic of set.dynamics) {
    if (dynamic.index > before) break;
    const match = dynamic.regex.exec(path);
    if (!match) continue;
    const values = new Map<string, string>();
    dynamic.names.forEach((name, i) => values.set(name, match[i + 1] ?? ""));
    return { rule: dynamic.rule, values };
  }
  return fixed ? { rule: fixed.rule, values: NO_VALUES } : undefined;
}
