/**
 * What a request hostname serves: a revision of a project's site. Answers are shared from a cache
 * (never mutate them); a new object stands for every new read, so a reader may key its own memos
 * on the object.
 */
export interface SiteTarget {
  readonly projectSlug: string;
  readonly revisionId: string;
  /** True on a revision host, whose content can never change. */
  readonly immutable: boolean;
  /** True on an alias host (`<alias>--<slug>`): a preview that moves, never indexed. */
  readonly preview?: boolean;
  /**
   * Since when this host serves this revision (ms since the epoch), its files' Last-Modified: on a
   * production host the last publish or promote (a rollback must not look older than what the
   * browser holds), on a revision host the revision's publish.
   */
  readonly publishedAt: number;
  /** The site's canonical URL (`https://www.example.com/`) when this host is not that one. */
  readonly canonicalUrl?: string;
}

/** A file of a revision: the blob that holds it and how to serve it (shared: never mutate it). */
export interface StoredFile {
  readonly hash: string;
  readonly size: number;
  readonly contentType: string;
}
