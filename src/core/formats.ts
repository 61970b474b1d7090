/** Formats of contract §2, as regular expressions and small predicates. */
export const HEX64 = /^[0-9a-fA-F]{64}$/;
export const ASSET_HASH = /^[0-9a-f]{32}$/;
/** Any control character, C0 and C1 (U+0000–U+001F, U+007F–U+009F): never part of a path. */
export const CONTROL_CHARACTER = /\p{Cc}/u;
/** The longest project slug (contract §2). */
export const MAX_SLUG_LENGTH = 40;

/** A DNS label of 3 to MAX_SLUG_LENGTH characters, no leading, trailing or doubled `-`. */
export const PROJECT_SLUG = new RegExp(`^(?=.{3,${MAX_SLUG_LENGTH}}$)[a-z0-9]+(?:-[a-z0-9]+)*$`);
/** A revision id: 10 of `a-z 0-9` (contract §2). */
export const REVISION_ID = /^[a-z0-9]{10}$/;

export const MIB = 1024 * 1024;

/** True when `value` is a valid project slug. */
export function isProjectSlug(value: string): boolean {
  return PROJECT_SLUG.test(value);
}

/** Longest deploy message (`message` of a deploy), in characters. */
export const DEPLOY_MESSAGE_MAX = 500;

/**
 * What is wrong with a deploy message, or undefined when it is fine: 1 to DEPLOY_MESSAGE_MAX
 * characters on one line, no control character (it is printed on terminals as it was sent).
 */
export function deployMessageProblem(message: string): string | undefined {
  if (message.trim() === "") return "a message is not empty";
  if ([...message].length > DEPLOY_MESSAGE_MAX)
    return `a message is at most ${DEPLOY_MESSAGE_MAX} characters`;
  if (CONTROL_CHARACTER.test(message)) return "a message is one line without control characters";
  return undefined;
}

/**
 * A preview alias (`<alias>--<slug>.<domain>`): 1 to 20 of `a-z 0-9 -`, no leading, trailing or
 * doubled `-` (so `<alias>--<slug>` splits at its first `--` and stays a DNS label of at most 63).
 */
export const PREVIEW_ALIAS = /^(?=.{1,20}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** What is wrong with a preview alias, or undefined: a revision id's shape is taken by revision hosts. */
export function previewAliasProblem(alias: string): string | undefined {
  if (!PREVIEW_ALIAS.test(alias)) {
    return "an alias is 1 to 20 of a-z, 0-9 and -, with no leading, trailing or doubled -";
  }
  if (REVISION_ID.test(alias)) return "an alias of 10 letters and digits would look like a revision id";
  return undefined;
}
