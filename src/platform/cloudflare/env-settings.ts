import { z } from "zod";
import { CLOUDFLARE_API_BASE_URL, type CloudflareSettings } from "./settings.js";

export type { CloudflareSettings };

const hex32 = z.string().regex(/^[0-9a-f]{32}$/, "must be 32 lowercase hex characters");

/** The platform switch and Cloudflare's settings; each is checked only with PLATFORM=cloudflare. */
export const CLOUDFLARE_ENV = {
  PLATFORM: z.enum(["local", "cloudflare"]).default("local"),
  CLOUDFLARE_ACCOUNT_ID: hex32.optional(),
  CLOUDFLARE_API_TOKEN: z
    .string()
    .regex(/^[A-Za-z0-9_-]{20,}$/, "must be an API token (letters, digits, - and _)")
    .optional(),
  CLOUDFLARE_DISPATCH_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, "must be a dispatch namespace name")
    .optional(),
  CLOUDFLARE_KV_NAMESPACE_ID: hex32.optional(),
  CLOUDFLARE_ZONE_ID: hex32.optional(),
  CLOUDFLARE_API_BASE_URL: z
    .string()
    .url()
    .regex(/^https?:\/\//, "must be an http(s) URL")
    .optional(),
};

const REQUIRED = [
  "CLOUDFLARE_ACCOUNT_ID",
  "CLOUDFLARE_API_TOKEN",
  "CLOUDFLARE_DISPATCH_NAMESPACE",
  "CLOUDFLARE_KV_NAMESPACE_ID",
  "CLOUDFLARE_ZONE_ID",
] as const;

type CloudflareEnv = z.infer<z.ZodObject<typeof CLOUDFLARE_ENV>>;

/**
 * Cloudflare's settings when PLATFORM=cloudflare (undefined otherwise), or a one-line message
 * naming the first setting that is missing.
 */
export function cloudflareSettings(env: CloudflareEnv): CloudflareSettings | undefined | string {
  if (env.PLATFORM !== "cloudflare") return undefined;
  const missing = REQUIRED.find((name) => env[name] === undefined);
  if (missing !== undefined) return `${missing}: required when PLATFORM=cloudflare`;
  return {
    accountId: env.CLOUDFLARE_ACCOUNT_ID!,
    apiToken: env.CLOUDFLARE_API_TOKEN!,
    dispatchNamespace: env.CLOUDFLARE_DISPATCH_NAMESPACE!,
    kvNamespaceId: env.CLOUDFLARE_KV_NAMESPACE_ID!,
    zoneId: env.CLOUDFLARE_ZONE_ID!,
    apiBaseUrl: (env.CLOUDFLARE_API_BASE_URL ?? CLOUDFLARE_API_BASE_URL).replace(/\/$/, ""),
  };
}
