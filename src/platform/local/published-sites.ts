import type { Statement } from "better-sqlite3";
import { PROJECT_SLUG } from "../../core/formats.js";
import type { PlatformDatabase } from "./database.js";

/** The revision a request hostname serves. */
export interface SiteTarget {
  projectSlug: string;
  revisionId: string;
  /** True on a revision host, whose content can never change. */
  immutable: boolean;
}

/** A file of a revision: the blob that holds it and how to serve it. */
export interface StoredFile {
  hash: string;
  size: number;
  contentType: string;
}

export interface PublishedSitesOptions {
  sitesDomain: string;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now?: () => number;
}

const REVISION_LABEL = /^([a-z0-9]{10})--([a-z0-9-]+)$/;

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
 * Reads the published manifest (sites, hostnames, revisions, files) that publishing writes. Every
 * call goes to SQLite through a prepared statement, so a publish or an expiry shows at once.
 */
export class PublishedSites {
  private readonly suffix: string;
  private readonly now: () => number;
  private readonly revisionStatement: Statement<[string, string, number], { found: number }>;
  private readonly productionStatement: Statement<
    [string, number],
    { project_slug: string; revision_id: string }
  >;
  private readonly fileStatement: Statement<
    [string, string, string],
    { hash: string; size: number; content_type: string }
  >;

  constructor(db: PlatformDatabase, options: PublishedSitesOptions) {
    this.suffix = `.${normalizeHost(options.sitesDomain)}`;
    this.now = options.now ?? Date.now;
    this.revisionStatement = db.prepare(
      `SELECT 1 AS found FROM sites s
         JOIN revisions r ON r.project_slug = s.project_slug
        WHERE s.project_slug = ? AND r.revision_id = ? AND s.expires_at > ?`,
    );
    this.productionStatement = db.prepare(
      `SELECT s.project_slug, s.revision_id FROM site_hosts h
         JOIN sites s ON s.project_slug = h.project_slug
        WHERE h.hostname = ? AND s.revision_id IS NOT NULL AND s.expires_at > ?`,
    );
    this.fileStatement = db.prepare(
      `SELECT f.hash, b.size, f.content_type FROM revision_files f
         JOIN blobs b ON b.hash = f.hash
        WHERE f.project_slug = ? AND f.revision_id = ? AND f.path = ?`,
    );
  }

  /** The revision a Host header value serves, or undefined when no live site answers on it. */
  resolve(host: string): SiteTarget | undefined {
    const hostname = normalizeHost(host);
    const now = this.now();
    const pinned = this.revisionHost(hostname);
    if (pinned && this.revisionStatement.get(pinned.projectSlug, pinned.revisionId, now)) {
      return { ...pinned, immutable: true };
    }
    const row = this.productionStatement.get(hostname, now);
    return row ? { projectSlug: row.project_slug, revisionId: row.revision_id, immutable: false } : undefined;
  }

  /** The file at `path` (site-relative, starting with `/`) of a revision, or undefined. */
  findFile(projectSlug: string, revisionId: string, path: string): StoredFile | undefined {
    const row = this.fileStatement.get(projectSlug, revisionId, path);
    return row ? { hash: row.hash, size: row.size, contentType: row.content_type } : undefined;
  }

  /** Splits `<revisionId>--<slug>.<sitesDomain>`; a slug never holds `--`, so the split is unique. */
  private revisionHost(hostname: string): { projectSlug: string; revisionId: string } | undefined {
    if (!hostname.endsWith(this.suffix)) return undefined;
    const match = REVISION_LABEL.exec(hostname.slice(0, -this.suffix.length));
    if (!match || !PROJECT_SLUG.test(match[2]!)) return undefined;
    return { revisionId: match[1]!, projectSlug: match[2]! };
  }
}
