/** Cloudflare's limits on one Worker version's static assets (Workers Paid, which Workers for Platforms needs). */
export const CLOUDFLARE_LIMITS = {
  /** Files per Worker version. */
  maxFiles: 100_000,
  /** Bytes per file. */
  maxFileBytes: 25 * 1024 * 1024,
} as const;

/** Where and as whom the platform works on Cloudflare. */
export interface CloudflareSettings {
  accountId: string;
  /** Secret: never logged, never in a response. */
  apiToken: string;
  /** The Workers for Platforms dispatch namespace that holds the sites' scripts. */
  dispatchNamespace: string;
  /** The Workers KV namespace of the published manifest (hostname → script). */
  kvNamespaceId: string;
  /** The zone of SITES_DOMAIN, where custom hostnames are made (Cloudflare for SaaS). */
  zoneId: string;
  /** Cloudflare's v4 API, without a trailing slash. */
  apiBaseUrl: string;
}

/** Cloudflare's public v4 API. */
export const CLOUDFLARE_API_BASE_URL = "https://api.cloudflare.com/client/v4";
