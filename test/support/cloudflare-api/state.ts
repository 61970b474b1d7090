/** One asset the stand-in holds in a namespace: its bytes and when it was last uploaded. */
export interface HeldAsset {
  bytes: Buffer;
  contentType: string | undefined;
  uploadedAt: number;
}

/** An open assets-upload-session: the script it is for, its manifest, and what it still lacks. */
export interface AssetSession {
  namespace: string;
  script: string;
  manifest: Record<string, { hash: string; size: number }>;
  missing: Set<string>;
}

/** A script in a dispatch namespace, as uploaded. */
export interface StoredScript {
  namespace: string;
  name: string;
  mainModule: string;
  moduleSource: string;
  /** The metadata's `compatibility_date`: the runtime runs the script at it. */
  compatibilityDate: string | undefined;
  /** The metadata's bindings: the assets are bound under the name of its `assets` binding. */
  bindings: { type: string; name: string }[];
  tags: string[];
  /** The assets configuration of its metadata. */
  assetsConfig: Record<string, unknown>;
  /** Path → asset, from the session its completion token closed. */
  assets: Record<string, { hash: string; size: number }>;
  createdOn: string;
}

/** A Cloudflare for SaaS custom hostname. */
export interface CustomHostname {
  id: string;
  hostname: string;
  status: "pending" | "active";
  ssl: { method: string; type: string; status: string };
  /** Why Cloudflare has not activated it yet, as its API lists them. */
  verification_errors?: string[];
  created_at: string;
}

/** Everything the stand-in holds: what a Cloudflare account would, for the calls the platform makes. */
export class CloudflareState {
  /** namespace → hash → asset (Workers for Platforms shares assets by hash across a namespace). */
  readonly assets = new Map<string, Map<string, HeldAsset>>();
  readonly sessions = new Map<string, AssetSession>();
  /** `${namespace}/${name}` → script. */
  readonly scripts = new Map<string, StoredScript>();
  /** KV namespace id → key → value. */
  readonly kv = new Map<string, Map<string, string>>();
  /** zone id → custom hostname id → custom hostname. */
  readonly customHostnames = new Map<string, Map<string, CustomHostname>>();
  /**
   * Account Workers (not in a namespace): the dispatch Worker, with its bindings, its compatibility
   * date and the media type of its main module's part.
   */
  readonly accountWorkers = new Map<
    string,
    { source: string; bindings: unknown[]; compatibilityDate?: string; moduleType: string }
  >();
  /** Zone routes to account Workers. */
  readonly routes: { pattern: string; script: string }[] = [];
  /** Bumped whenever a script is uploaded or deleted: a Workers runtime rebuilds then. */
  scriptsVersion = 0;

  namespaceAssets(namespace: string): Map<string, HeldAsset> {
    let held = this.assets.get(namespace);
    if (held === undefined) this.assets.set(namespace, (held = new Map()));
    return held;
  }

  kvNamespace(id: string): Map<string, string> {
    let values = this.kv.get(id);
    if (values === undefined) this.kv.set(id, (values = new Map()));
    return values;
  }

  zone(id: string): Map<string, CustomHostname> {
    let hostnames = this.customHostnames.get(id);
    if (hostnames === undefined) this.customHostnames.set(id, (hostnames = new Map()));
    return hostnames;
  }

  /**
   * What Cloudflare does once the hostname's HTTP validation passes (its DNS points at the zone's
   * fallback origin): the custom hostname and its certificate become active.
   */
  validateCustomHostname(zoneId: string, hostname: string): void {
    const found = [...this.zone(zoneId).values()].find((h) => h.hostname === hostname);
    if (found === undefined) throw new Error(`no custom hostname ${hostname} in zone ${zoneId}`);
    found.status = "active";
    found.ssl.status = "active";
    delete found.verification_errors;
  }

  script(namespace: string, name: string): StoredScript | undefined {
    return this.scripts.get(`${namespace}/${name}`);
  }
}
