import { sql } from "kysely";
import type { SiteTarget, StoredFile } from "../../../core/published-site.js";
import { CompiledRules, NO_RULES, type SiteRules } from "../../../core/site-rules/index.js";
import { type Executor, firstOf, type PlatformDatabase } from "../state/platform-db.js";
import { manifestGeneration, type ManifestGeneration } from "./manifest-generation.js";
import { ProjectCaches } from "./project-caches.js";
import { type HostEntry, readHostEntry } from "./host-reads.js";

export type { SiteTarget, StoredFile };

export interface PublishedSitesOptions {
  /** Generated hostnames are `<slug>.<sitesDomain>`, revision hosts `<revisionId>--<slug>.<sitesDomain>`. */
  sitesDomain: string;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now?: () => number;
  /** Most Host values remembered (unknown ones included); the oldest goes first. Default 10,000. */
  maxHosts?: number;
  /** Most file lookups remembered (misses included); all are dropped when full. Default 50,000. */
  maxFiles?: number;
}

// A hostname is at most 253 characters; longer Host values are looked up but never remembered,
// so a flood of them cannot hold much memory.
const MAX_HOST_KEY = 260;
const MAX_PATH_KEY = 1024;
// Compiled rules of at most this many revisions are kept (a revision's can hold 2,100 rules).
const MAX_RULE_SETS = 256;

/**
 * A revision's file at a path, through its manifest (sites/manifest-staging.ts): a delta's row
 * (`removed` 1: the path is gone) before its base's; `size` NULL when its blob is not held.
 */
function fileQuery(projectSlug: string, revisionId: string, path: string) {
  return sql<{ hash: string; size: number | string | null; content_type: string; removed: number }>`SELECT
      f.hash, b.size, f.content_type, f.removed FROM revisions r
    JOIN manifests m ON m.project_slug = r.project_slug AND m.id = r.manifest_id
    JOIN manifest_files f ON f.project_slug = r.project_slug AND f.path = ${path}
      AND (f.manifest_id = m.id OR f.manifest_id = m.base_id)
    LEFT JOIN blobs b ON b.hash = f.hash
    WHERE r.project_slug = ${projectSlug} AND r.revision_id = ${revisionId}
    ORDER BY CASE WHEN f.manifest_id = m.id THEN 0 ELSE 1 END LIMIT 1`;
}

/** Lowercases a Host header value and strips a `:port` and one trailing dot. */
export function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[")) {
    // An IPv6 literal: its colons are not a port separator. No site ever answers on one.
    const close = name.indexOf("]");
    name = close === -1 ? name : name.slice(0, close + 1);
  } else {
    const colon = name.lastIndexOf(":");
    if (colon !== -1) name = name.slice(0, colon);
  }
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

/**
 * Reads the published manifest (sites, hostnames, revisions, files) that publishing writes, and
 * keeps what it read in memory until the next write of that project's part of it (the connection's
 * manifest generation names the project each write touched), so a publish, a hostname change or a
 * removal shows on the very next request, and other projects' lookups stay. A write of unknown
 * extent (a missed notification) drops everything. A Host no project holds is kept until any
 * write, since any project may take it. Expiry is checked against the clock on every call: a site
 * stops answering the moment it expires. All caches are bounded, misses included, so unknown hosts
 * or paths cannot grow memory.
 */
export class PublishedSites {
  private readonly suffix: string;
  private readonly now: () => number;
  private readonly generation: ManifestGeneration;
  private readonly maxHosts: number;
  private seenEverything: number;
  private readonly hosts = new Map<string, HostEntry>();
  // Per project and revision: path → file (null: no such file); "" → the compiled rules.
  private readonly files: ProjectCaches<StoredFile | null>;
  private readonly rules = new ProjectCaches<CompiledRules>(MAX_RULE_SETS);
  private readonly db: Executor;

  constructor(database: PlatformDatabase, options: PublishedSitesOptions) {
    this.suffix = `.${normalizeHost(options.sitesDomain)}`;
    this.now = options.now ?? Date.now;
    this.maxHosts = options.maxHosts ?? 10_000;
    this.files = new ProjectCaches(options.maxFiles ?? 50_000);
    this.generation = manifestGeneration(database);
    this.seenEverything = this.generation.everything;
    this.db = database.db;
  }

  /** How many host and file lookups are remembered (misses included): for tests and diagnostics. */
  get cached(): { hosts: number; files: number } {
    return { hosts: this.hosts.size, files: this.files.size };
  }

  /**
   * The revision a Host header value serves, or undefined when no live site answers on it; without
   * a promise when the host is remembered (the edge's hot path makes none).
   */
  resolve(host: string): SiteTarget | undefined | Promise<SiteTarget | undefined> {
    this.forgetIfEverythingMoved();
    const entry = this.hosts.get(host);
    if (entry !== undefined) {
      if (this.hostFresh(entry.readAt, entry.projects)) return this.targetOf(entry);
      this.hosts.delete(host);
    }
    return this.readAndRemember(host);
  }

  private async readAndRemember(host: string): Promise<SiteTarget | undefined> {
    const read = this.generation.value;
    const entry = await readHostEntry(this.db, this.suffix, normalizeHost(host), read);
    // What was read before a write that came meanwhile is used once, never remembered.
    if (host.length <= MAX_HOST_KEY && this.hostFresh(read, entry.projects)) this.rememberHost(host, entry);
    return this.targetOf(entry);
  }

  /** What a host's entry serves now: its pinned revision, else production, unless expired. */
  private targetOf(entry: HostEntry): SiteTarget | undefined {
    const now = this.now();
    if (entry.pinned !== undefined && entry.pinned.expiresAt > now) return entry.pinned.target;
    if (entry.production !== undefined && entry.production.expiresAt > now) return entry.production.target;
    return undefined;
  }

  /** The file at `path` (site-relative, starting with `/`) of a revision, or undefined. */
  async findFile(projectSlug: string, revisionId: string, path: string): Promise<StoredFile | undefined> {
    this.forgetIfEverythingMoved();
    const known = this.files.get(projectSlug, revisionId, path, this.generation);
    if (known !== undefined) return known ?? undefined;
    const read = this.generation.value;
    const row = await firstOf(this.db, fileQuery(projectSlug, revisionId, path));
    const file: StoredFile | null =
      row && row.removed === 0 && row.size !== null
        ? Object.freeze({ hash: row.hash, size: Number(row.size), contentType: row.content_type })
        : null;
    if (path.length <= MAX_PATH_KEY && this.projectFresh(read, projectSlug)) {
      this.files.remember(projectSlug, revisionId, path, file, read);
    }
    return file ?? undefined;
  }

  /** A revision's `_redirects` and `_headers`, compiled on first use and kept until its project's next write. */
  async rulesOf(projectSlug: string, revisionId: string): Promise<CompiledRules> {
    this.forgetIfEverythingMoved();
    let compiled = this.rules.get(projectSlug, revisionId, "", this.generation);
    if (compiled === undefined) {
      const read = this.generation.value;
      const row = await firstOf(
        this.db,
        sql<{ rules: string }>`SELECT rules FROM revision_rules
          WHERE project_slug = ${projectSlug} AND revision_id = ${revisionId}`,
      );
      compiled = new CompiledRules(row ? (JSON.parse(row.rules) as SiteRules) : NO_RULES);
      if (this.projectFresh(read, projectSlug))
        this.rules.remember(projectSlug, revisionId, "", compiled, read);
    }
    return compiled;
  }

  /** True when no write of the project came since generation `readAt`. */
  private projectFresh(readAt: number, projectSlug: string): boolean {
    return readAt === this.generation.value || this.generation.changedAt(projectSlug) <= readAt;
  }

  /** True when a host entry read at `readAt` still holds: no write of its projects (of any, when undefined) since. */
  private hostFresh(readAt: number, projects: readonly string[] | undefined): boolean {
    if (readAt === this.generation.value) return true;
    if (projects === undefined) return false;
    for (const slug of projects) if (this.generation.changedAt(slug) > readAt) return false;
    return true;
  }

  /** After a write of unknown extent, frees the memory of everything at once (each lookup would see it stale). */
  private forgetIfEverythingMoved(): void {
    if (this.generation.everything === this.seenEverything) return;
    this.seenEverything = this.generation.everything;
    this.hosts.clear();
    this.files.clear();
    this.rules.clear();
  }

  private rememberHost(host: string, entry: HostEntry): void {
    // A stale entry (or one another lookup remembered meanwhile) is replaced, not counted twice.
    this.hosts.delete(host);
    // A Map iterates in insertion order: its first key is the oldest entry.
    if (this.hosts.size >= this.maxHosts) this.hosts.delete(this.hosts.keys().next().value!);
    this.hosts.set(host, entry);
  }
}
