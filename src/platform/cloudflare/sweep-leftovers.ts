import type { KvStore } from "./kv-store.js";
import {
  projectKey,
  type ProjectRecord,
  SCRIPT_PREFIX,
  type ScriptRecord,
  SESSION_PREFIX,
  type SessionRecord,
} from "./records.js";

/**
 * Removes expired session records, and the scripts no project names once their session expired
 * (an abandoned deploy, a crash between uploading a script and recording it, a half-done delete),
 * so nothing stays in the namespace, billed, forever.
 */
export async function sweepLeftovers(
  kv: KvStore,
  now: number,
  deleteScript: (script: string) => Promise<void>,
): Promise<number> {
  for (const key of await kv.keys(SESSION_PREFIX)) {
    const session = await kv.get<SessionRecord>(key);
    if (session !== undefined && session.expiresAt <= now) await kv.delete(key);
  }
  let deleted = 0;
  for (const key of await kv.keys(SCRIPT_PREFIX)) {
    const script = key.slice(SCRIPT_PREFIX.length);
    const record = await kv.get<ScriptRecord>(key);
    if (record === undefined || record.expiresAt > now) continue;
    const project = await kv.get<ProjectRecord>(projectKey(record.projectSlug));
    if (project !== undefined && Object.values(project.revisions).includes(script)) continue;
    await deleteScript(script);
    deleted += 1;
  }
  return deleted;
}
