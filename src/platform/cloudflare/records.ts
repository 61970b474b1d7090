import type { RulesHashes } from "./site-rules-config.js";

/**
 * What the platform keeps in its KV namespace. Host entries (key = the hostname) are the published
 * manifest the dispatch Worker reads; the other records (keys with a `:`, which no hostname has)
 * are the platform's own bookkeeping, so several API instances share one state.
 */

/** The published manifest's entry for one hostname: the script to dispatch to, and until when. */
export interface HostEntry {
  script: string;
  /** Milliseconds since the epoch; the dispatch Worker answers 404 after it. */
  expiresAt: number;
  /** The canonical origin (`https://www.example.com/`) other hostnames name in a Link header. */
  canonicalUrl?: string;
  /** A revision host (its content never changes: cached as immutable) or an alias host: never indexed. */
  preview?: "revision" | "alias";
}

/** A project's state on Cloudflare. */
export interface ProjectRecord {
  /** Revision id → the script that serves it. */
  revisions: Record<string, string>;
  production: string | null;
  hostnames: string[];
  canonical?: { hostname: string; url: string };
  expiresAt: number;
  /** Preview alias → the revision `<alias>--<slug>` serves (deploy --alias); absent: none yet. */
  aliases?: Record<string, string>;
}

/** An upload session: the script its completion token is for. */
export interface SessionRecord {
  projectSlug: string;
  script: string;
  expiresAt: number;
  /** The manifest's hashes of `/_redirects` and `/_headers`, which the deploy's texts must match. */
  rules?: RulesHashes;
}

/** Written before a script is uploaded, so the sweep finds a script a crash left unrecorded. */
export interface ScriptRecord {
  projectSlug: string;
  sessionId: string;
  /** When the session that made it expires: after that, unreferenced, it is a leftover. */
  expiresAt: number;
}

/** The KV key of a project's record. */
export const projectKey = (slug: string) => `project:${slug}`;
/** The KV key of an upload session's record. */
export const sessionKey = (id: string) => `session:${id}`;
/** The KV key of a script's record (see `ScriptRecord`). */
export const scriptKey = (name: string) => `script:${name}`;
export const SCRIPT_PREFIX = "script:";
export const PROJECT_PREFIX = "project:";
export const SESSION_PREFIX = "session:";

/** The hostname of a revision: `<revision>--<slug>.<sites domain>`. */
export const revisionHostname = (revisionId: string, slug: string, sitesDomain: string) =>
  `${revisionId}--${slug}.${sitesDomain}`;
