import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { Miniflare, Response as MiniflareResponse, type Request as MiniflareRequest } from "miniflare";
import type { CloudflareState, StoredScript } from "./state.js";

const DISPATCHER_SOURCE = fileURLToPath(
  new URL("../../../src/platform/cloudflare/dispatcher/dispatcher.ts", import.meta.url),
);
const COMPATIBILITY_DATE = "2025-01-01";

/** The dispatcher's `DISPATCHER` binding: a dispatch namespace's `get(name)`; a missing script throws. */
const NAMESPACE_SHIM = `export default function (env) {
  return {
    get(name) {
      return {
        async fetch(request) {
          const forwarded = new Request(request);
          forwarded.headers.set("x-dispatch-script", name);
          const response = await env.NAMESPACE.fetch(forwarded);
          if (response.headers.get("x-dispatch-missing") === "1") throw new Error("Worker not found.");
          return response;
        },
      };
    },
  };
}`;

/** The dispatcher's `SITES` binding: KV's `get(key, "json")`, read from the stand-in's KV. */
const KV_SHIM = `export default function (env) {
  return {
    async get(key, type) {
      const response = await env.LOOKUP.fetch("http://kv/" + encodeURIComponent(key));
      if (response.status === 404) return null;
      return type === "json" ? response.json() : response.text();
    },
  };
}`;

/**
 * workerd, through miniflare, running what the stand-in holds: the repository's dispatch Worker,
 * its KV binding reading the stand-in's KV namespace, its dispatch-namespace binding reaching the
 * uploaded scripts, each run with its uploaded assets and assets configuration. Each script has a
 * workerd of its own (miniflare serves one assets directory per instance), started on first use.
 */
export class WorkersRuntime {
  private dispatcher: Miniflare | undefined;
  private readonly scripts = new Map<string, { script: StoredScript; mf: Miniflare }>();

  constructor(
    private readonly state: CloudflareState,
    private readonly settings: { namespace: string; kvNamespaceId: string; dir: string },
  ) {}

  /** Fetches `path` on `hostname` through the dispatch Worker (GET unless `init` says otherwise). */
  async fetch(
    hostname: string,
    path: string,
    init: { method?: string; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    this.dispatcher ??= this.startDispatcher();
    const reply = await this.dispatcher.dispatchFetch(`http://${hostname}${path}`, {
      ...init,
      redirect: "manual",
    });
    return reply as unknown as Response;
  }

  async close(): Promise<void> {
    await this.dispatcher?.dispose();
    for (const { mf } of this.scripts.values()) await mf.dispose();
  }

  private startDispatcher(): Miniflare {
    const kv = this.state.kvNamespace(this.settings.kvNamespaceId);
    const dispatcher = transformSync(readFileSync(DISPATCHER_SOURCE, "utf8"), {
      loader: "ts",
      format: "esm",
    }).code;
    return new Miniflare({
      workers: [
        {
          name: "dispatcher",
          modules: true,
          script: dispatcher,
          compatibilityDate: COMPATIBILITY_DATE,
          wrappedBindings: { DISPATCHER: "namespace-shim", SITES: "kv-shim" },
        },
        {
          name: "namespace-shim",
          modules: true,
          script: NAMESPACE_SHIM,
          serviceBindings: { NAMESPACE: (request: MiniflareRequest) => this.forward(request) },
        },
        {
          name: "kv-shim",
          modules: true,
          script: KV_SHIM,
          serviceBindings: {
            LOOKUP: async (request: MiniflareRequest) => {
              const value = kv.get(decodeURIComponent(new URL(request.url).pathname.slice(1)));
              return new MiniflareResponse(value ?? null, { status: value === undefined ? 404 : 200 });
            },
          },
        },
      ],
    });
  }

  /** Runs a request on the script it names, as the namespace holds it now. */
  private async forward(request: MiniflareRequest): Promise<MiniflareResponse> {
    const name = request.headers.get("x-dispatch-script") ?? "";
    const script = this.state.script(this.settings.namespace, name);
    if (script === undefined)
      return new MiniflareResponse(null, { status: 404, headers: { "x-dispatch-missing": "1" } });
    let running = this.scripts.get(name);
    if (running?.script !== script) {
      await running?.mf.dispose();
      running = { script, mf: this.startScript(script) };
      this.scripts.set(name, running);
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      if (key !== "x-dispatch-script") headers[key] = value;
    });
    return running.mf.dispatchFetch(request.url, { method: request.method, headers, redirect: "manual" });
  }

  private startScript(script: StoredScript): Miniflare {
    const config = { ...script.assetsConfig };
    const directory = this.writeAssets(script, config);
    delete config._redirects;
    delete config._headers;
    // Bound as the script's metadata names them, so a script uploaded without them lacks them.
    const binding = script.bindings.find((b) => b.type === "assets")?.name;
    return new Miniflare({
      name: script.name,
      modules: [{ type: "ESModule", path: script.mainModule, contents: script.moduleSource }],
      // Cloudflare refuses a script without one; miniflare does too.
      compatibilityDate: script.compatibilityDate ?? "",
      ...(binding === undefined ? {} : { assets: { directory, binding, assetConfig: config } }),
    });
  }

  /**
   * Writes a script's assets, by path, from the namespace's content; the `_redirects` and
   * `_headers` of its assets configuration become the files miniflare reads them from.
   */
  private writeAssets(script: StoredScript, config: Record<string, unknown>): string {
    const root = join(this.settings.dir, script.name);
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const held = this.state.namespaceAssets(this.settings.namespace);
    for (const [path, { hash }] of Object.entries(script.assets)) {
      // Cloudflare never serves these two as files; they configure the assets instead.
      if (path === "/_redirects" || path === "/_headers") continue;
      const file = join(root, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, held.get(hash)?.bytes ?? Buffer.alloc(0));
    }
    for (const name of ["_redirects", "_headers"]) {
      if (typeof config[name] === "string") writeFileSync(join(root, name), config[name]);
    }
    return root;
  }
}
