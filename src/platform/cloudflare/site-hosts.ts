import type { CustomHostnames } from "./custom-hostnames.js";
import type { KvStore } from "./kv-store.js";
import { type HostEntry, type ProjectRecord, revisionHostname } from "./records.js";

/** The published manifest's host entries of projects, and the custom hostnames behind them. */
export class SiteHosts {
  constructor(
    private readonly kv: KvStore,
    private readonly domains: CustomHostnames,
    private readonly sitesDomain: string,
  ) {}

  /**
   * Writes the host entries of `revisionIds`' revision hosts, then, if the project has a production
   * revision, of its production hostnames: production last, so a failure before leaves it as it was.
   */
  async publish(slug: string, project: ProjectRecord, revisionIds: string[]): Promise<void> {
    for (const id of revisionIds) {
      const script = project.revisions[id];
      if (script === undefined) continue;
      await this.kv.put(revisionHostname(id, slug, this.sitesDomain), {
        script,
        expiresAt: project.expiresAt,
        preview: "revision",
      } satisfies HostEntry);
    }
    // Alias hosts of those revisions: `<alias>--<slug>` has the revision host's form.
    for (const [alias, id] of Object.entries(project.aliases ?? {})) {
      const script = project.revisions[id];
      if (script === undefined || !revisionIds.includes(id)) continue;
      await this.kv.put(revisionHostname(alias, slug, this.sitesDomain), {
        script,
        expiresAt: project.expiresAt,
        preview: "alias",
      } satisfies HostEntry);
    }
    if (project.production === null) return;
    const script = project.revisions[project.production]!;
    for (const hostname of project.hostnames) {
      const entry: HostEntry = { script, expiresAt: project.expiresAt };
      if (project.canonical !== undefined && project.canonical.hostname !== hostname) {
        entry.canonicalUrl = project.canonical.url;
      }
      await this.kv.put(hostname, entry);
    }
  }

  /** Deletes the host entries of revisions (or aliases): their URLs answer 404 at once. */
  async unpublishRevisions(slug: string, revisionIds: string[]): Promise<void> {
    for (const id of revisionIds) await this.kv.delete(revisionHostname(id, slug, this.sitesDomain));
  }

  /** Makes Cloudflare for SaaS custom hostnames of the external ones among `hostnames`. */
  async addDomains(hostnames: string[]): Promise<void> {
    for (const hostname of hostnames.filter((h) => this.isExternal(h))) await this.domains.add(hostname);
  }

  /**
   * Whether Cloudflare has validated the custom hostname, and what it says; one it does not hold
   * (a crash between the store and Cloudflare) is asked for again and reported pending.
   */
  async validation(hostname: string): Promise<{ active: boolean; message: string }> {
    const state = await this.domains.status(hostname);
    if (state === undefined) {
      await this.domains.add(hostname);
      return {
        active: false,
        message: `Cloudflare did not hold the custom hostname ${hostname}; it was added again`,
      };
    }
    // `active_redeploying`: active, its certificate being replaced; it keeps serving.
    const active = state.status === "active" || state.status === "active_redeploying";
    const why = state.errors.length > 0 ? `: ${state.errors.join("; ")}` : "";
    return {
      active,
      message: `Cloudflare shows the custom hostname ${state.status}, its certificate ${state.certificate}${why}`,
    };
  }

  /** Deletes the host entries of `hostnames` (they stop answering), then their custom hostnames. */
  async remove(hostnames: string[]): Promise<void> {
    for (const hostname of hostnames) await this.kv.delete(hostname);
    for (const hostname of hostnames.filter((h) => this.isExternal(h))) await this.domains.remove(hostname);
  }

  private isExternal(hostname: string): boolean {
    return hostname !== this.sitesDomain && !hostname.endsWith(`.${this.sitesDomain}`);
  }
}
