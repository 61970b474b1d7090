import { readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import Cloudflare from "cloudflare";
import { UploadPlatformError } from "../../core/errors.js";
import { cloudflareCall, CloudflareRefusal, type RetryBudget } from "./cloudflare-calls.js";
import type { CloudflareSettings } from "./settings.js";
import { type Clock, systemClock } from "../../core/clock.js";

/** The dispatch Worker's script name in the account. */
export const DISPATCHER_SCRIPT = "deploy-dispatcher";
const DISPATCHER_MODULE = "dispatcher.js";

/** What the token must be allowed, each with a call that needs it. */
const PERMISSIONS: { name: string; probe: (c: Cloudflare, s: CloudflareSettings) => Promise<unknown> }[] = [
  {
    name: "Account · Workers Scripts · Edit (dispatch namespace)",
    probe: (c, s) =>
      c.workersForPlatforms.dispatch.namespaces.get(s.dispatchNamespace, { account_id: s.accountId }),
  },
  {
    name: "Account · Workers KV Storage · Edit",
    probe: (c, s) => c.kv.namespaces.get(s.kvNamespaceId, { account_id: s.accountId }),
  },
  {
    name: "Zone · SSL and Certificates · Edit (custom hostnames)",
    probe: (c, s) => c.customHostnames.list({ zone_id: s.zoneId }),
  },
];

/** What a test may replace: the dispatch Worker's file, and the time, read and waited. */
export interface SetupOptions {
  dispatcherPath?: URL;
  clock?: Clock;
  /** Waits out a Retry-After (a timer by default). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * `deploy-server cloudflare setup`: checks the token and what it may do (naming each permission it
 * lacks), then deploys the dispatch Worker bound to the manifest's KV namespace and the dispatch
 * namespace, on `*.SITES_DOMAIN/*` and on the custom hostnames' fallback (`*\/*`). Returns the lines
 * to print; throws UploadPlatformError when the token lacks a permission.
 */
export async function setUpCloudflare(
  settings: CloudflareSettings,
  sitesDomain: string,
  options: SetupOptions = {},
): Promise<string[]> {
  const dispatcherPath = options.dispatcherPath ?? new URL("./dispatcher/dispatcher.js", import.meta.url);
  const client = new Cloudflare({ apiToken: settings.apiToken, baseURL: settings.apiBaseUrl, maxRetries: 0 });
  const clock = options.clock ?? systemClock;
  const budget: RetryBudget = { budgetMs: 20_000, now: () => clock.now(), sleep: options.sleep ?? delay };
  const lines: string[] = [];
  await cloudflareCall("verifying the API token", budget, () => client.user.tokens.verify());
  lines.push("token: active");
  const missing: string[] = [];
  for (const { name, probe } of PERMISSIONS) {
    try {
      await cloudflareCall(`checking ${name}`, budget, () => probe(client, settings));
    } catch (error) {
      if (!(error instanceof UploadPlatformError || error instanceof CloudflareRefusal)) throw error;
      missing.push(`${name}: ${error.message}`);
    }
  }
  if (missing.length > 0) {
    throw new UploadPlatformError(
      `the API token cannot do everything needed; missing:\n  ${missing.join("\n  ")}`,
    );
  }
  lines.push("permissions: dispatch namespace, KV namespace and custom hostnames reachable");
  const source = await readFile(dispatcherPath, "utf8");
  await cloudflareCall("uploading the dispatch Worker", budget, () =>
    client.workers.scripts.update(DISPATCHER_SCRIPT, {
      account_id: settings.accountId,
      metadata: {
        main_module: DISPATCHER_MODULE,
        compatibility_date: "2025-01-01",
        bindings: [
          { type: "kv_namespace", name: "SITES", namespace_id: settings.kvNamespaceId },
          { type: "dispatch_namespace", name: "DISPATCHER", namespace: settings.dispatchNamespace },
        ],
      },
      files: [new File([source], DISPATCHER_MODULE, { type: "application/javascript+module" })],
    }),
  );
  lines.push(`dispatch Worker: ${DISPATCHER_SCRIPT} uploaded`);
  for (const pattern of [`*.${sitesDomain}/*`, "*/*"]) {
    try {
      await cloudflareCall(`adding route ${pattern}`, budget, () =>
        client.workers.routes.create({ zone_id: settings.zoneId, pattern, script: DISPATCHER_SCRIPT }),
      );
      lines.push(`route: ${pattern} → ${DISPATCHER_SCRIPT}`);
    } catch (error) {
      // A route that exists already (code 10020) is what we want.
      if (!(error instanceof CloudflareRefusal && error.status === 409)) throw error;
      lines.push(`route: ${pattern} exists`);
    }
  }
  return lines;
}
