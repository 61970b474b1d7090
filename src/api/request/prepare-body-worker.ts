import { parentPort } from "node:worker_threads";
import { type CompactManifest, compactManifest } from "../../core/checked-manifest.js";
import type { ManifestLimits } from "../../core/manifest.js";

/**
 * The worker thread that parses large prepare bodies (`prepare-body-pool.ts`): JSON.parse of 9 MB
 * and the check of 100,000 entries, away from the thread the API, uploads and the edge share.
 */

/** What the service asks: one body's bytes, the project it names, the manifest's limits. */
export interface PrepareBodyRequest {
  id: number;
  bytes: ArrayBuffer;
  slug: string;
  limits: ManifestLimits;
}

/** What the worker answers: the body's fields for zod (small), and its manifest checked and packed. */
export type PrepareBodyAnswer =
  | { id: number; invalidJson: string }
  | { id: number; fields: Record<string, unknown>; manifest: CompactManifest };

const utf8 = new TextDecoder();

/** The body's fields the prepare route reads; zod ignores any other. */
const FIELDS = ["projectHash", "anonFingerprint", "skipUnchanged", "manifestDigest"];

/** Answers one request as `parseBody` would judge its JSON, the manifest checked as the core would. */
export function answer(request: PrepareBodyRequest): PrepareBodyAnswer {
  const { id } = request;
  let body: unknown;
  try {
    body = JSON.parse(utf8.decode(request.bytes));
  } catch {
    return { id, invalidJson: "request body is not valid JSON" };
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { id, invalidJson: "request body must be a JSON object" };
  }
  const record = body as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const field of FIELDS) {
    if (Object.hasOwn(record, field)) fields[field] = small(record[field]);
  }
  return { id, fields, manifest: compactManifest(record.manifest, request.slug, request.limits) };
}

/** A field's value, or an empty one of its kind: zod's message names only the kind of a wrong one. */
function small(value: unknown): unknown {
  if (Array.isArray(value)) return [];
  if (typeof value === "object" && value !== null) return {};
  return value;
}

parentPort?.on("message", (request: PrepareBodyRequest) => {
  const reply = answer(request);
  // The sizes' and places' own buffers (made here, never shared): moved, not copied.
  const transfer: ArrayBuffer[] =
    "manifest" in reply && "sizes" in reply.manifest
      ? [
          reply.manifest.sizes.buffer as ArrayBuffer,
          reply.manifest.byPath.places.buffer as ArrayBuffer,
          reply.manifest.byPath.sizes.buffer as ArrayBuffer,
        ]
      : [];
  parentPort!.postMessage(reply, transfer);
});
