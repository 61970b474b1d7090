import { createHash } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { CompiledRules, NO_RULES, parseSiteRules } from "../../src/core/site-rules/index.js";
import type { EdgeBlob, EdgeStorage, SiteTarget, StoredFile } from "../../src/edge/edge-storage.js";
import { mediaTypeFor } from "../../src/shared/media-types.js";

/** A site to put in a `MemoryEdgeStorage`: its revision's files by site-relative path. */
export interface MemorySite {
  projectSlug: string;
  revisionId: string;
  files: Record<string, string | Buffer>;
  /** Since when the host serves it (ms); default 0. */
  publishedAt?: number;
  /** True for a revision host (immutable content). */
  immutable?: boolean;
}

type Coding = "br" | "gzip";

/**
 * The edge's storage in maps, for the edge's unit tests: no database, no disk. Hosts are matched
 * lowercased without a port; `_redirects` and `_headers` among the files become the revision's
 * rules, as publishing does. What it was asked is counted in `calls`.
 */
export class MemoryEdgeStorage implements EdgeStorage {
  private readonly sites = new Map<string, SiteTarget>();
  private readonly files = new Map<string, StoredFile>();
  private readonly rules = new Map<string, CompiledRules>();
  readonly blobs = new Map<string, Buffer>();
  readonly variants = new Map<string, Buffer>();
  readonly calls = { lookupSite: 0, findFile: 0, readBlob: 0, openBlob: 0 };

  /** Serves `site` on `host` from now on (a new target object, as a publish makes). */
  publish(host: string, site: MemorySite): SiteTarget {
    const { projectSlug, revisionId } = site;
    for (const [path, content] of Object.entries(site.files)) {
      const bytes = Buffer.from(content);
      const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 32);
      this.blobs.set(hash, bytes);
      const file = { hash, size: bytes.length, contentType: mediaTypeFor(path) };
      this.files.set(`${projectSlug}/${revisionId}${path}`, file);
    }
    const text = (path: string) => site.files[path]?.toString();
    const parsed = parseSiteRules({ redirects: text("/_redirects"), headers: text("/_headers") });
    this.rules.set(`${projectSlug}/${revisionId}`, new CompiledRules(parsed));
    const target = { projectSlug, revisionId, immutable: site.immutable ?? false };
    this.sites.set(host, Object.freeze({ ...target, publishedAt: site.publishedAt ?? 0 }));
    return this.sites.get(host)!;
  }

  // Maps know their answer: no promise, as the self-hosted storage for a host it remembers.
  lookupSite(host: string): SiteTarget | undefined {
    this.calls.lookupSite++;
    return this.sites.get(host.toLowerCase().replace(/:\d+$/, ""));
  }

  async findFile(projectSlug: string, revisionId: string, path: string): Promise<StoredFile | undefined> {
    this.calls.findFile++;
    return this.files.get(`${projectSlug}/${revisionId}${path}`);
  }

  async rulesOf(projectSlug: string, revisionId: string): Promise<CompiledRules> {
    return this.rules.get(`${projectSlug}/${revisionId}`) ?? new CompiledRules(NO_RULES);
  }

  async readBlob(hash: string): Promise<Buffer> {
    this.calls.readBlob++;
    return this.blob(hash);
  }

  async openBlob(hash: string): Promise<EdgeBlob> {
    this.calls.openBlob++;
    return opened(this.blob(hash));
  }

  async variantSize(hash: string, coding: Coding): Promise<number | undefined> {
    return this.variants.get(`${hash}.${coding}`)?.length;
  }

  async openVariant(hash: string, coding: Coding): Promise<EdgeBlob | undefined> {
    const variant = this.variants.get(`${hash}.${coding}`);
    return variant && opened(variant);
  }

  async storeVariant(hash: string, coding: Coding, fill: (sink: Writable) => Promise<void>): Promise<void> {
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    await fill(sink);
    this.variants.set(`${hash}.${coding}`, Buffer.concat(chunks));
  }

  private blob(hash: string): Buffer {
    const bytes = this.blobs.get(hash);
    if (!bytes) throw new Error(`blob ${hash} is not held`);
    return bytes;
  }
}

function opened(bytes: Buffer): EdgeBlob {
  return {
    size: bytes.length,
    stream: (start, end) => Readable.from([bytes.subarray(start, end + 1)]),
    close: () => undefined,
  };
}
