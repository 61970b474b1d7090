import { createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { Writable } from "node:stream";
import type { SiteTarget, StoredFile } from "../../../core/published-site.js";
import type { CompiledRules } from "../../../core/site-rules/index.js";
import { openSized } from "../../../shared/sized-file.js";
import type { BlobReader, OpenedBlob } from "../content/blob-reader.js";
import type { ContentDirectory } from "../content/content-directory.js";
import { fileRange } from "../content/file-range.js";
import type { PlatformDatabase } from "../state/platform-db.js";
import { PublishedSites, type PublishedSitesOptions } from "../sites/published-sites.js";

type Coding = "br" | "gzip";

/** What the edge's storage is made of: the platform's state, as `openSelfHostedState` opens it. */
export interface EdgeState {
  db: PlatformDatabase;
  reader: BlobReader;
  content: ContentDirectory;
}

/**
 * The edge's storage on the self-hosted platform (the edge's `EdgeStorage`): the published
 * manifest through `PublishedSites` and its caches, blobs through their packs, and compressed
 * variants as files under the content's `variants/`. Each method hands the call on as it is: the
 * edge's hot path gains no await and no allocation.
 */
export class SelfHostedEdgeStorage {
  private readonly sites: PublishedSites;
  private readonly reader: BlobReader;
  private readonly content: ContentDirectory;

  constructor(state: EdgeState, options: PublishedSitesOptions) {
    this.sites = new PublishedSites(state.db, options);
    this.reader = state.reader;
    this.content = state.content;
  }

  /** The revision a Host header value serves, or undefined. */
  lookupSite(host: string): SiteTarget | undefined | Promise<SiteTarget | undefined> {
    return this.sites.resolve(host);
  }

  /** The file at `path` of a revision, or undefined. */
  findFile(projectSlug: string, revisionId: string, path: string): Promise<StoredFile | undefined> {
    return this.sites.findFile(projectSlug, revisionId, path);
  }

  /** A revision's compiled `_redirects` and `_headers`. */
  rulesOf(projectSlug: string, revisionId: string): Promise<CompiledRules> {
    return this.sites.rulesOf(projectSlug, revisionId);
  }

  /** The whole blob, in memory. */
  readBlob(hash: string): Promise<Buffer> {
    return this.reader.read(hash);
  }

  /** A blob opened for streaming, checked whole. */
  openBlob(hash: string): Promise<OpenedBlob> {
    return this.reader.open(hash);
  }

  /** The size of a variant's file, or undefined when it was not made. */
  async variantSize(hash: string, coding: Coding): Promise<number | undefined> {
    try {
      return (await stat(this.content.variantPath(hash, coding))).size;
    } catch {
      return undefined;
    }
  }

  /** A variant's file opened for streaming, or undefined when it was not made. */
  async openVariant(hash: string, coding: Coding): Promise<OpenedBlob | undefined> {
    let opened;
    try {
      opened = await openSized(this.content.variantPath(hash, coding));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    const { file, size } = opened;
    return { size, ...fileRange(file, 0, size, () => void file.close().catch(() => undefined)) };
  }

  /** Makes a variant's file: written to a temporary file, renamed into place once whole. */
  storeVariant(hash: string, coding: Coding, fill: (sink: Writable) => Promise<void>): Promise<void> {
    return this.content.storeVariant(hash, coding, async (temporary) => {
      const sink = createWriteStream(temporary);
      try {
        await fill(sink);
      } finally {
        // Already closed once filled; this only lets go of a file `fill` left unwritten.
        sink.destroy();
      }
    });
  }
}
