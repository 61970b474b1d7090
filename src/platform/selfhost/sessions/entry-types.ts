import type { ManifestEntry } from "../../../core/manifest.js";
import type { Pacer } from "../../../shared/event-loop.js";
import { mediaTypeFor } from "../../../shared/media-types.js";
import { compressibleFlag } from "../quotas/quota-charges.js";

/** Each entry's media type by its extension, and its compressibleFlag. */
export interface EntryTypes {
  types: string[];
  compressible: number[];
}

/** The EntryTypes of `entries`, paced by `pacer` (checked every 4,096 entries). */
export async function typesOfPaced(entries: readonly ManifestEntry[], pacer: Pacer): Promise<EntryTypes> {
  const types = new Array<string>(entries.length);
  const compressible = new Array<number>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    if ((i & 4095) === 4095 && pacer.due()) await pacer.next();
    const type = mediaTypeFor(entries[i]!.path);
    types[i] = type;
    compressible[i] = compressibleFlag(type);
  }
  return { types, compressible };
}
