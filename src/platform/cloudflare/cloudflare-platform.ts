import { randomBytes } from "node:crypto";
import Cloudflare from "cloudflare";
import { AliasLimitError, InvalidCompletionError, RevisionNotFoundError } from "../../core/errors.js";
import type { ManifestEntry } from "../../core/manifest.js";
import {
  MAX_ALIASES,
  type Platform,
  type PublishInput,
  type SiteSettings,
  type UploadSession,
} from "../../core/ports/index.js";
import { cloudflareCall, CloudflareRefusal, type RetryBudget } from "./cloudflare-calls.js";
import { CustomHostnames } from "./custom-hostnames.js";
import { KvStore } from "./kv-store.js";
import {
  projectKey,
  type ProjectRecord,
  scriptKey,
  type ScriptRecord,
  sessionKey,
  type SessionRecord,
} from "./records.js";
import type { CloudflareSettings } from "./settings.js";
import { checkLimits } from "./manifest-limits.js";
import {
  COMPATIBILITY_DATE,
  projectTag,
  SITE_ASSETS_CONFIG,
  SITE_MODULE,
  SITE_MODULE_SOURCE,
} from "./site-script.js";
import { SiteHosts } from "./site-hosts.js";
import { rulesHashesOf, siteRulesConfig } from "./site-rules-config.js";
import { sweepCustomHostnames } from "./sweep-custom-hostnames.js";
import { sweepLeftovers } from "./sweep-leftovers.js";

export interface CloudflarePlatformOptions extends CloudflareSettings {
  sitesDomain: string;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** How long one operation may spend retrying Cloudflare (default 20 s), and how to wait. */
  retryBudgetMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Cloudflare Workers for Platforms as the platform: each upload session is a script of the dispatch
 * namespace (its assets uploaded by the client straight to Cloudflare), publishing writes the
 * published manifest in Workers KV, which the dispatch Worker reads. Every call goes through the SDK.
 */
export class CloudflarePlatform implements Platform {
  readonly kind = "cloudflare";
  private readonly client: Cloudflare;
  private readonly budget: RetryBudget;
  private readonly kv: KvStore;
  private readonly hosts: SiteHosts;
  private readonly domains: CustomHostnames;

  constructor(private readonly options: CloudflarePlatformOptions) {
    this.client = new Cloudflare({ apiToken: options.apiToken, baseURL: options.apiBaseUrl, maxRetries: 0 });
    this.budget = {
      budgetMs: options.retryBudgetMs ?? 20_000,
      now: options.now,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
    this.kv = new KvStore(this.client, options.accountId, options.kvNamespaceId, this.budget);
    this.domains = new CustomHostnames(this.client, options.zoneId, this.budget);
    this.hosts = new SiteHosts(this.kv, this.domains, options.sitesDomain);
  }

  async openUploadSession(input: {
    projectSlug: string;
    entries: ManifestEntry[];
    expiresAt: Date;
  }): Promise<UploadSession> {
    checkLimits(input.entries);
    const sessionId = randomBytes(8).toString("hex");
    const script = `${input.projectSlug}--${sessionId}`;
    const manifest = Object.fromEntries(input.entries.map((e) => [e.path, { hash: e.hash, size: e.size }]));
    const { accountId, dispatchNamespace } = this.options;
    const opened = await cloudflareCall("opening an assets upload session", this.budget, () =>
      this.client.workersForPlatforms.dispatch.namespaces.scripts.assetUpload.create(
        dispatchNamespace,
        script,
        {
          account_id: accountId,
          manifest,
        },
      ),
    );
    const record: SessionRecord = {
      projectSlug: input.projectSlug,
      script,
      expiresAt: input.expiresAt.getTime(),
      rules: rulesHashesOf(input.entries),
    };
    await this.kv.put(sessionKey(sessionId), record);
    return {
      sessionId,
      accountId,
      uploadJwt: opened.jwt ?? "",
      buckets: opened.buckets ?? [],
      uploadUrl: `${this.options.apiBaseUrl}/accounts/${accountId}/workers/assets/upload?base64=true`,
      expiresAt: input.expiresAt,
    };
  }

  async publishRevision(input: PublishInput): Promise<void> {
    const session = await this.kv.get<SessionRecord>(sessionKey(input.sessionId));
    if (session === undefined || session.projectSlug !== input.projectSlug)
      throw new InvalidCompletionError();
    const project = (await this.kv.get<ProjectRecord>(projectKey(input.projectSlug))) ?? emptyProject(input);
    // Checked before anything is written: one alias too many publishes nothing.
    const aliases = project.aliases ?? {};
    if (input.alias !== undefined && aliases[input.alias] === undefined) {
      if (Object.keys(aliases).length >= MAX_ALIASES) {
        throw new AliasLimitError(
          `a project has at most ${MAX_ALIASES} aliases; this one has ${MAX_ALIASES}`,
        );
      }
    }
    // Published already (a retry): the script is never uploaded again, only the hostnames rewritten.
    if (project.revisions[input.revisionId] !== session.script) {
      if (session.expiresAt <= this.options.now())
        throw new InvalidCompletionError("completion token expired");
      // Checked before anything is written: a refused rules file publishes nothing.
      const rules = await siteRulesConfig(session.rules ?? {}, input.siteRules);
      await this.uploadScript(session, input, rules);
      project.revisions[input.revisionId] = session.script;
    }
    if (input.alias !== undefined) project.aliases = { ...aliases, [input.alias]: input.revisionId };
    if (!input.preview) {
      project.production = input.revisionId;
      project.hostnames = input.hostnames;
      project.canonical = input.canonical;
      project.expiresAt = input.expiresAt.getTime();
    }
    await this.kv.put(projectKey(input.projectSlug), project);
    await this.hosts.publish(input.projectSlug, project, [input.revisionId]);
  }

  private async uploadScript(
    session: SessionRecord,
    input: PublishInput,
    rules: { _redirects?: string; _headers?: string },
  ): Promise<void> {
    const { accountId, dispatchNamespace } = this.options;
    const record: ScriptRecord = {
      projectSlug: input.projectSlug,
      sessionId: input.sessionId,
      expiresAt: session.expiresAt,
    };
    await this.kv.put(scriptKey(session.script), record);
    try {
      await cloudflareCall(`uploading script ${session.script}`, this.budget, () =>
        this.client.workersForPlatforms.dispatch.namespaces.scripts.update(
          dispatchNamespace,
          session.script,
          {
            account_id: accountId,
            metadata: {
              main_module: SITE_MODULE,
              compatibility_date: COMPATIBILITY_DATE,
              tags: [projectTag(input.projectSlug)],
              bindings: [{ type: "assets", name: "ASSETS" }],
              assets: { jwt: input.completionJwt, config: { ...SITE_ASSETS_CONFIG, ...rules } },
            },
            files: [new File([SITE_MODULE_SOURCE], SITE_MODULE, { type: "application/javascript+module" })],
          },
        ),
      );
    } catch (error) {
      // The only thing of ours in the upload Cloudflare can refuse is the assets token.
      if (error instanceof CloudflareRefusal)
        throw new InvalidCompletionError(`Cloudflare refused the completion token (${error.message})`);
      throw error;
    }
  }

  async promoteRevision(projectSlug: string, revisionId: string): Promise<void> {
    const project = await this.kv.get<ProjectRecord>(projectKey(projectSlug));
    if (project?.revisions[revisionId] === undefined) throw new RevisionNotFoundError();
    project.production = revisionId;
    await this.kv.put(projectKey(projectSlug), project);
    await this.hosts.publish(projectSlug, project, []);
  }

  async pruneRevisions(projectSlug: string, revisionIds: string[]): Promise<void> {
    const project = await this.kv.get<ProjectRecord>(projectKey(projectSlug));
    if (project === undefined) return;
    const pruned = revisionIds.filter(
      (id) => id !== project.production && project.revisions[id] !== undefined,
    );
    if (pruned.length === 0) return;
    // Their hosts (and their aliases') stop answering first; the record, then the scripts, after.
    const aliases = Object.entries(project.aliases ?? {}).filter(([, id]) => pruned.includes(id));
    await this.hosts.unpublishRevisions(projectSlug, [...pruned, ...aliases.map(([alias]) => alias)]);
    for (const [alias] of aliases) delete project.aliases![alias];
    const scripts = pruned.map((id) => project.revisions[id]!);
    for (const id of pruned) delete project.revisions[id];
    await this.kv.put(projectKey(projectSlug), project);
    for (const script of scripts) await this.deleteScript(script);
  }

  async updateSite(projectSlug: string, settings: SiteSettings): Promise<void> {
    // A project not deployed yet gets its record here: its custom hostnames are made at Cloudflare
    // now, and reset, delete and the sweep find them through it.
    const project = (await this.kv.get<ProjectRecord>(projectKey(projectSlug))) ?? {
      revisions: {},
      production: null,
      hostnames: [],
      expiresAt: settings.expiresAt.getTime(),
    };
    const previous = project.hostnames;
    project.hostnames = settings.hostnames;
    project.canonical = settings.canonical;
    project.expiresAt = settings.expiresAt.getTime();
    // The record names a custom hostname before Cloudflare holds it, so the sweep never takes one
    // being made for a leftover.
    await this.kv.put(projectKey(projectSlug), project);
    await this.hosts.addDomains(settings.hostnames.filter((h) => !previous.includes(h)));
    await this.hosts.publish(projectSlug, project, Object.keys(project.revisions));
    await this.hosts.remove(previous.filter((h) => !settings.hostnames.includes(h)));
  }

  async unpublishProject(projectSlug: string): Promise<void> {
    const project = await this.kv.get<ProjectRecord>(projectKey(projectSlug));
    if (project === undefined) return;
    // The hostnames stop answering at once; scripts and custom hostnames go after.
    await this.hosts.remove(project.hostnames);
    await this.hosts.unpublishRevisions(projectSlug, [
      ...Object.keys(project.revisions),
      ...Object.keys(project.aliases ?? {}),
    ]);
    for (const script of Object.values(project.revisions)) await this.deleteScript(script);
    await this.kv.delete(projectKey(projectSlug));
  }

  /** Deletes a script (already gone is fine), then its record. */
  async deleteScript(script: string): Promise<void> {
    const { accountId, dispatchNamespace } = this.options;
    try {
      await cloudflareCall(`deleting script ${script}`, this.budget, () =>
        this.client.workersForPlatforms.dispatch.namespaces.scripts.delete(dispatchNamespace, script, {
          account_id: accountId,
          force: true,
        }),
      );
    } catch (error) {
      if (!(error instanceof CloudflareRefusal && error.status === 404)) throw error;
    }
    await this.kv.delete(scriptKey(script));
  }

  /**
   * Removes what a crash or an abandoned deploy left: expired session records, scripts no
   * project names once their session expired, and custom hostnames no project names. Cloudflare
   * keeps and reclaims asset content itself, so no content is counted here.
   */
  async sweep(now: Date): Promise<{ blobsDeleted: number; bytesFreed: number }> {
    await sweepLeftovers(this.kv, now.getTime(), (script) => this.deleteScript(script));
    await sweepCustomHostnames(this.kv, this.domains, now.getTime());
    return { blobsDeleted: 0, bytesFreed: 0 };
  }

  /** Cloudflare for SaaS validates custom hostnames (HTTP validation of a DV certificate). */
  customHostnameStatus(hostname: string): Promise<{ active: boolean; message: string }> {
    return this.hosts.validation(hostname);
  }

  /** Cloudflare answers and accepts the API token (UploadPlatformError saying so otherwise). */
  async check(): Promise<void> {
    await cloudflareCall("verifying the API token", this.budget, () => this.client.user.tokens.verify());
  }

  async close(): Promise<void> {}
}

function emptyProject(input: PublishInput): ProjectRecord {
  return {
    revisions: {},
    production: null,
    hostnames: input.hostnames,
    expiresAt: input.expiresAt.getTime(),
  };
}
