import type { CustomHostnames } from "./custom-hostnames.js";
import type { KvStore } from "./kv-store.js";
import { PROJECT_PREFIX, type ProjectRecord } from "./records.js";

/**
 * How long a custom hostname no project record names is left alone: a domain change writes the
 * record before it asks Cloudflare, so only a crash or a race leaves one unnamed for longer.
 */
export const UNNAMED_HOSTNAME_GRACE_MS = 10 * 60_000;

/**
 * Deletes the zone's custom hostnames that no project record names (a crashed request, a
 * half-done delete), listed from Cloudflare rather than from our records, once older than the
 * grace. Returns how many it deleted.
 */
export async function sweepCustomHostnames(
  kv: KvStore,
  domains: CustomHostnames,
  now: number,
): Promise<number> {
  const held = await domains.all();
  if (held.length === 0) return 0;
  const named = new Set<string>();
  for (const key of await kv.keys(PROJECT_PREFIX)) {
    for (const hostname of (await kv.get<ProjectRecord>(key))?.hostnames ?? []) named.add(hostname);
  }
  let deleted = 0;
  for (const { id, hostname, createdAt } of held) {
    if (named.has(hostname) || createdAt > now - UNNAMED_HOSTNAME_GRACE_MS) continue;
    await domains.removeId(id, hostname);
    deleted += 1;
  }
  return deleted;
}
