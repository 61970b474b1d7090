import { isIP } from "node:net";
import { domainToASCII, domainToUnicode } from "node:url";
import { InvalidDomainError } from "./errors.js";
import { quoteForMessage } from "./text.js";

const MAX_HOSTNAME = 253;
const MAX_LABEL = 63;
const ASCII_LABEL = /^[a-z0-9-]+$/;

/**
 * The first thing in `input` that makes it something other than a bare hostname (a URL, a path, a
 * port…), said for a person, or undefined. Each is refused, never cut off: taking
 * `www.example.com/path` as `www.example.com` would claim a name the user did not write.
 */
function notAHostname(input: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input))
    return "has a scheme (give the hostname alone, without http://)";
  if (/[\s]/u.test(input)) return "contains whitespace";
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(input)) return "contains a control character";
  if (input.includes("/")) return "has a path (give the hostname alone, without /…)";
  if (input.includes("?")) return "has a query (give the hostname alone, without ?…)";
  if (input.includes("#")) return "has a fragment (give the hostname alone, without #…)";
  if (input.includes("\\")) return "contains a backslash";
  if (input.includes("@")) return "has a user name (give the hostname alone, without …@)";
  if (input.includes("%")) return "contains a percent sign (give the hostname as it is, not URL-encoded)";
  if (isIP(input) !== 0 || isIP(input.replace(/^\[|\]$/g, "")) !== 0)
    return "is an IP address, not a hostname";
  if (input.includes(":")) return "has a port (give the hostname alone, without :port)";
  return undefined;
}

/** The first problem of an ASCII (A-label) hostname, or undefined when it is a valid one. */
function labelProblem(ascii: string): string | undefined {
  if (ascii.length > MAX_HOSTNAME) return `is ${ascii.length} characters long, more than ${MAX_HOSTNAME}`;
  const labels = ascii.split(".");
  if (labels.some((label) => label.length === 0))
    return "has an empty label (two dots in a row, or a leading dot)";
  if (labels.length < 2) return "needs at least two labels (such as example.com)";
  for (const label of labels) {
    if (label.length > MAX_LABEL) {
      return `has a label of ${label.length} characters, more than ${MAX_LABEL} ("${label.slice(0, 20)}…")`;
    }
    if (!ASCII_LABEL.test(label)) {
      const bad = [...label].find((ch) => !/[a-z0-9-]/.test(ch))!;
      return `contains "${quoteForMessage(bad)}", which a hostname may not (letters, digits and - only)`;
    }
    if (label.startsWith("-") || label.endsWith("-"))
      return `has a label that starts or ends with "-" ("${label}")`;
  }
  if (/^[0-9]+$/.test(labels[labels.length - 1]!))
    return "ends in an all-numeric label, which no top-level domain is";
  return undefined;
}

/**
 * Takes a hostname exactly as given or refuses it (INVALID_DOMAIN, the message naming the
 * problem): case is folded, one trailing dot dropped, an IDN turned into punycode (contract §8).
 * Nothing else is changed: input that IDNA processing would alter beyond case (a character it maps
 * or drops) is refused rather than silently shortened.
 */
export function normalizeHostname(input: string): string {
  const refuse = (problem: string): never => {
    throw new InvalidDomainError(`domain "${quoteForMessage(input)}" ${problem}`);
  };
  if (input.length === 0) refuse("is empty");
  // A cheap bound before any parsing: an A-label form is never shorter than 1/4 of its input.
  if (input.length > MAX_HOSTNAME * 4)
    refuse(`is ${input.length} characters long, more than ${MAX_HOSTNAME}`);
  const problem = notAHostname(input);
  if (problem !== undefined) refuse(problem);
  const name = (input.endsWith(".") ? input.slice(0, -1) : input).toLowerCase();
  if (name.endsWith(".")) refuse("ends in more than one dot");
  const isAscii = /^[\x20-\x7e]*$/.test(name);
  if (isAscii) {
    const issue = labelProblem(name);
    if (issue !== undefined) refuse(issue);
  } else if (name.split(".").some((label) => label.length === 0)) {
    refuse("has an empty label (two dots in a row, or a leading dot)");
  }
  const ascii = domainToASCII(name);
  if (ascii === "") refuse("is not a valid internationalised hostname");
  const issue = labelProblem(ascii);
  if (issue !== undefined) refuse(issue);
  // IDNA may map or drop a character (a full-width letter or dot, a soft hyphen…), or refuse a
  // punycode label that decodes to nothing valid: either way, not the name that was typed.
  if (isAscii ? ascii !== name : domainToUnicode(ascii) !== name) {
    refuse(
      `is not in its normal form; IDNA reads it as "${quoteForMessage(domainToUnicode(ascii))}" (${ascii})`,
    );
  }
  return ascii;
}
