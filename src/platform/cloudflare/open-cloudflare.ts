import { CloudflarePlatform } from "./cloudflare-platform.js";
import type { CloudflareSettings } from "./settings.js";

/**
 * Cloudflare as the platform (PLATFORM=cloudflare): sessions, scripts and the published manifest
 * live in the account; one operation spends at most about a request's time retrying Cloudflare.
 */
export function openCloudflarePlatform(
  settings: CloudflareSettings,
  config: { sitesDomain: string; timeouts: { requestMs: number } },
  now: () => number,
): CloudflarePlatform {
  return new CloudflarePlatform({
    ...settings,
    sitesDomain: config.sitesDomain,
    now,
    retryBudgetMs: Math.min(20_000, config.timeouts.requestMs / 2),
  });
}
