import { CONTROL_CHARACTER } from "../../core/formats.js";
import { MAX_PATH_BYTES } from "../../core/manifest.js";
import { MAX_UTF8_PER_UNIT } from "../../core/text.js";
import { CliError } from "../errors.js";
import { formatBytes } from "../format.js";
import type { SiteFile } from "./walk-state.js";

/** The limits checked before anything is uploaded. */
interface SiteLimits {
  maxFiles: number;
  maxFileBytes: number;
}

/** Whose limits: the client's own settings, or the server's (`GET /limits`), named in the message. */
interface LimitsSource {
  /** "the limit", "the server's limit". */
  limit: string;
  /** What to do besides leaving files out. */
  hint: string;
}

const OWN_LIMITS: LimitsSource = { limit: "the limit", hint: "" };

const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, "gu");
const SHOWN = 20;

/** Throws a CliError naming the files when the site breaks a limit or holds a name the API refuses. */
export function checkLimits(
  root: string,
  files: readonly SiteFile[],
  limits: SiteLimits,
  source: LimitsSource = OWN_LIMITS,
): void {
  if (files.length === 0) {
    throw new CliError(
      "EMPTY_SITE",
      `nothing to deploy: ${root} holds no file (after ignores)`,
      "Deploy the folder that holds your built site, e.g. ./dist.",
    );
  }
  if (files.length > limits.maxFiles) {
    throw new CliError(
      "TOO_MANY_FILES",
      `${root} holds ${files.length} files; ${source === OWN_LIMITS ? "a deploy" : "the server accepts a deploy that"} may hold at most ${limits.maxFiles}`,
      `Leave out what the site does not need with a .deployignore file (gitignore syntax).${source.hint}`,
    );
  }
  const oversize = files.filter((file) => file.size > limits.maxFileBytes);
  if (oversize.length > 0) {
    const lines = oversize.map((file) => `${file.path} (${formatBytes(file.size)})`);
    throw new CliError(
      "FILE_TOO_LARGE",
      oversize.length === 1
        ? `${lines[0]!} is larger than ${source.limit} of ${formatBytes(limits.maxFileBytes)} per file`
        : `${oversize.length} files are larger than ${source.limit} of ${formatBytes(limits.maxFileBytes)} per file:\n${list(lines)}`,
      `Shrink or split them, host them elsewhere, or name them in .deployignore.${source.hint}`,
    );
  }
  // Contract §2: no backslash, no control character (C0 and C1) in a manifest key.
  const badNames = files.filter((file) => file.path.includes("\\") || CONTROL_CHARACTER.test(file.path));
  if (badNames.length > 0) {
    throw new CliError(
      "BAD_FILE_NAME",
      `file names with a backslash or a control character cannot be served:\n${list(badNames.map((file) => quoted(file.path)))}`,
      "Rename them or name them in .deployignore.",
    );
  }
  // Contract §2: a manifest path (`/` and the file's) is at most MAX_PATH_BYTES of UTF-8.
  // Most paths are short enough not to be measured.
  const tooLong = files.find(
    (file) =>
      file.path.length * MAX_UTF8_PER_UNIT + 1 > MAX_PATH_BYTES &&
      Buffer.byteLength(file.path, "utf8") + 1 > MAX_PATH_BYTES,
  );
  if (tooLong) {
    throw new CliError(
      "BAD_FILE_NAME",
      `a file's path is longer than ${MAX_PATH_BYTES} bytes, the most a deploy accepts: ${quoted(tooLong.path.slice(0, 80))}…`,
      "Rename it or name it in .deployignore.",
    );
  }
}

/** A file name in quotes with every control character escaped, so a terminal shows it rather than acts on it. */
function quoted(name: string): string {
  // JSON escapes C0 characters but leaves U+007F–U+009F as they are.
  return JSON.stringify(name).replace(
    CONTROL_CHARACTERS,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function list(lines: string[]): string {
  const shown = lines.slice(0, SHOWN).map((line) => `  ${line}`);
  if (lines.length > SHOWN) shown.push(`  … and ${lines.length - SHOWN} more`);
  return shown.join("\n");
}
