/** Formats of contract §2, as regular expressions and small predicates. */
export const HEX64 = /^[0-9a-fA-F]{64}$/;
export const ASSET_HASH = /^[0-9a-f]{32}$/;
export const REVISION_ID = /^[a-z0-9]{10}$/;
export const DEPLOY_ID = /^[A-Za-z0-9_-]{22,64}$/;
export const ACCOUNT_ID = /^[0-9a-f]{32}$/;
/** A DNS label of 3 to 40 characters, no leading, trailing or doubled `-`. */
export const PROJECT_SLUG = /^(?=.{3,40}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const MIB = 1024 * 1024;

/** True when `value` is a valid project slug. */
export function isProjectSlug(value: string): boolean {
  return PROJECT_SLUG.test(value);
}
