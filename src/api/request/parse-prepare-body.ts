import type { Context } from "hono";
import type { z } from "zod";
import { CheckedManifest } from "../../core/checked-manifest.js";
import { InvalidJsonError } from "../../core/errors.js";
import type { ManifestLimits } from "../../core/manifest.js";
import { judgeBody, parseJsonBody, readBodyBytes } from "./parse-body.js";
import { prepareBodyPool } from "./prepare-body-pool.js";
import type { prepareRequestSchema } from "./schemas.js";

/**
 * Bodies longer than this are parsed in the worker thread: JSON.parse of 1 MiB takes some 30 ms,
 * and of the largest prepare (100,000 entries, 9 MB) over 300 ms.
 */
export const WORKER_BODY_BYTES = 1024 * 1024;

const utf8 = new TextDecoder();

/**
 * `parseBody` for a prepare, with the same answers: a large body is parsed, and its manifest checked
 * and digested, in a worker thread; the core gets the manifest as a `CheckedManifest` then.
 */
export async function parsePrepareBody(
  c: Context,
  schema: typeof prepareRequestSchema,
  manifest: { slug: string; limits: ManifestLimits },
): Promise<{ body: z.infer<typeof prepareRequestSchema>; raw: Record<string, unknown> }> {
  const bytes = await readBodyBytes(c);
  if (bytes.byteLength <= WORKER_BODY_BYTES) return parseJsonBody(utf8.decode(bytes), schema);
  // The bytes move to the worker (no copy); it decodes them as `readBodyText` would.
  const answer = await prepareBodyPool.parse({ bytes, ...manifest });
  if ("invalidJson" in answer) throw new InvalidJsonError(answer.invalidJson);
  const judged = judgeBody(answer.fields, schema);
  return { ...judged, raw: { ...judged.raw, manifest: new CheckedManifest(answer.manifest) } };
}
