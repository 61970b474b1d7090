import { MAX_PATH_BYTES } from "../manifest.js";
import type { Services } from "./services.js";

/**
 * `GET /limits` (contract §3): what the server refuses, so a client can refuse it first, before it
 * creates a project or sends a byte. A zero quota is switched off; a zero TTL never expires.
 */
export interface ServerLimits {
  /** Assets a manifest may hold. */
  maxFiles: number;
  /** Bytes of one asset. */
  maxFileBytes: number;
  /** Bytes of an API request body: the prepare manifest, paths included, must fit. */
  maxRequestBytes: number;
  /** Bytes of UTF-8 all of a manifest's paths may take together (MAX_MANIFEST_BYTES). */
  maxManifestBytes: number;
  /** Bytes of UTF-8 of one manifest path, from its `/` after the slug (MAX_PATH_BYTES). */
  maxPathBytes: number;
  /** Distinct content a project keeps across its revisions, the new manifest's included (0: off). */
  projectQuotaBytes: number;
  /** Bytes a client address may have prepared and not deployed (0: off). */
  pendingQuotaBytes: number;
  /** Bytes the projects one client address created within CLIENT_QUOTA_WINDOW_SECONDS may keep together (0: off). */
  clientQuotaBytes: number;
  /** How long after its last deploy a project expires (0: never). */
  projectTtlSeconds: number;
  /** How long a prepared deploy may wait for its completion. */
  deployTtlSeconds: number;
  /** What serves the sites: the client warns of site rules Cloudflare cannot apply (§7). */
  platform: "built-in" | "cloudflare";
}

/** The server's limits, from its settings: nothing secret, the same for every client. */
export function serverLimits(services: Services, maxRequestBytes: number): ServerLimits {
  const { config } = services;
  return {
    maxFiles: config.limits.maxAssets,
    maxFileBytes: config.limits.maxAssetBytes,
    maxRequestBytes,
    maxManifestBytes: config.limits.maxManifestBytes,
    maxPathBytes: MAX_PATH_BYTES,
    projectQuotaBytes: config.quotas.projectBytes,
    pendingQuotaBytes: config.quotas.pendingBytes,
    clientQuotaBytes: config.quotas.clientBytes,
    projectTtlSeconds: config.projectTtlSeconds,
    deployTtlSeconds: config.deployTtlSeconds,
    platform: services.platform.kind ?? "built-in",
  };
}
