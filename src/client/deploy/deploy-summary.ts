/** The outcome of a deploy, as printed (and as `--json`). */
export interface DeploySummary {
  projectSlug: string;
  revisionId: string;
  productionUrl: string;
  revisionUrl: string;
  /** When the project expires (ISO 8601; the server's "never" sentinel when it does not). */
  expiresAt: string;
  files: number;
  uploaded: number;
  reused: number;
  bytesUploaded: number;
  durationMs: number;
  /** Files whose content another file of the site has: sent (at most) once for all of them. */
  identical: number;
  /** Published on its revision URL only; production left where it was. */
  preview: boolean;
  /** The deploy's message (`--message`), stored with its revision. */
  message?: string;
  /** The preview alias (`--alias`) and the URL that now serves this revision under it. */
  alias?: string;
  aliasUrl?: string;
  /** Set while the custom hostname waits for DNS: productionUrl may not answer yet, servingUrl does. */
  pendingDomain?: { hostname: string; servingUrl: string };
  /** Production already served exactly these files: nothing was sent or published (its expiry renewed). */
  unchanged?: boolean;
  /** Skipped for being dotfiles or dot-folders. */
  skippedDotfiles: string[];
  /** Skipped because a `.gitignore` ignores them (and `.deployignore` did not bring them back). */
  skippedGitignored: string[];
  /** Set when the saved project was gone and a new one (with a new URL) was made. */
  previousProjectSlug?: string;
}
