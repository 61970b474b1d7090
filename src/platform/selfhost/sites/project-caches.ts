import type { ManifestGeneration } from "./manifest-generation.js";

/** What is remembered of one project, with the manifest generation it was read at. */
interface ProjectCache<T> {
  readAt: number;
  count: number;
  revisions: Map<string, Map<string, T>>;
}

/**
 * Values read of the published manifest (a revision's files, its rules), kept per project so a
 * write of one project drops its values only. Bounded by entry count: when full, everything is
 * dropped, which is crude but cheap, and only a flood of distinct keys gets there.
 */
export class ProjectCaches<T> {
  private projects = new Map<string, ProjectCache<T>>();
  private count = 0;

  constructor(private readonly max: number) {}

  /** Number of values held. */
  get size(): number {
    return this.count;
  }

  /**
   * The value of the project's revision at `key`, or undefined; the project's values are dropped
   * when `generation` tells of a write of the project since they were read.
   */
  get(projectSlug: string, revisionId: string, key: string, generation: ManifestGeneration): T | undefined {
    const cache = this.projects.get(projectSlug);
    if (cache === undefined) return undefined;
    if (cache.readAt === generation.value || generation.changedAt(projectSlug) <= cache.readAt) {
      return cache.revisions.get(revisionId)?.get(key);
    }
    this.projects.delete(projectSlug);
    this.count -= cache.count;
    return undefined;
  }

  /**
   * Remembers a value read at generation `readAt`, when no write of the project came since (the
   * caller checked). A cache of the project held is fresh as well (`get` dropped a stale one before
   * the read), so the value joins it whatever generation it was read at.
   */
  remember(projectSlug: string, revisionId: string, key: string, value: T, readAt: number): void {
    if (this.max <= 0) return;
    if (this.count >= this.max) this.clear();
    let cache = this.projects.get(projectSlug);
    if (cache === undefined)
      this.projects.set(projectSlug, (cache = { readAt, count: 0, revisions: new Map() }));
    let keys = cache.revisions.get(revisionId);
    if (keys === undefined) cache.revisions.set(revisionId, (keys = new Map()));
    if (!keys.has(key)) {
      cache.count++;
      this.count++;
    }
    keys.set(key, value);
  }

  /** Drops every value. */
  clear(): void {
    this.projects = new Map();
    this.count = 0;
  }
}
