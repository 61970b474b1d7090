/** Formats of contract §2, as regular expressions and small predicates. */
export const HEX64 = /^[0-9a-fA-F]{64}$/;
export const ASSET_HASH = /^[0-9a-f]{32}$/;
/** Any control character, C0 and C1 (U+0000–U+001F, U+007F–U+009F): never part of a path. */
export const CONTROL_CHARACTER = /\p{Cc}/u;
/** A DNS label of 3 to 40 characters, no leading, trailing or doubled `-`. */
export const PROJECT_SLUG = /^(?=.{3,40}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A revision id: 10 of `a-z 0-9` (contract §2). */
export const REVISION_ID = /^[a-z0-9]{10}$/;

export const MIB = 1024 * 1024;

/** True when `value` is a valid project slug. */
export function isProjectSlug(value: string): boolean {
  return PROJECT_SLUG.test(value);
}
