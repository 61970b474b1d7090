import { InvalidSiteConfigError } from "../errors.js";
import { MAX_RULES_FILE_BYTES } from "./rule-types.js";

/** One line of a rules file, numbered from 1, without its line ending. */
export interface NumberedLine {
  number: number;
  content: string;
}

/** Splits a rules file into lines (LF or CRLF, a leading byte-order mark dropped), bounding its size. */
export function splitLines(text: string, file: string): NumberedLine[] {
  if (text.length > MAX_RULES_FILE_BYTES) {
    throw new InvalidSiteConfigError(file, 0, `larger than ${MAX_RULES_FILE_BYTES / 1024 / 1024} MiB`);
  }
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  return body.split(/\r?\n/).map((content, index) => ({ number: index + 1, content }));
}

/** Reads a rules file's bytes as UTF-8 text; bytes that are not UTF-8 are refused. */
export function decodeRulesFile(bytes: Uint8Array, file: string): string {
  if (bytes.length > MAX_RULES_FILE_BYTES) {
    throw new InvalidSiteConfigError(file, 0, `larger than ${MAX_RULES_FILE_BYTES / 1024 / 1024} MiB`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidSiteConfigError(file, 0, "not UTF-8 text");
  }
}
