import { CliError } from "../errors.js";

/** What another machine needs to act on a project: where, which, and its secrets. */
export interface Credential {
  apiUrl: string;
  projectSlug: string;
  apiToken: string;
  projectHash: string;
  anonFingerprint: string;
}

/** A prefix that says what the string is (and its version), as `sdp_` does for API tokens. */
const PREFIX = "sdc1_";
const HEX64 = /^[0-9a-f]{64}$/;

/** The credential as one opaque string: the prefix and base64url of its JSON. */
export function encodeCredential(credential: Credential): string {
  const { apiUrl, projectSlug, apiToken, projectHash, anonFingerprint } = credential;
  const json = JSON.stringify({ apiUrl, projectSlug, apiToken, projectHash, anonFingerprint });
  return PREFIX + Buffer.from(json, "utf8").toString("base64url");
}

/**
 * Reads a credential from DEPLOY_CREDENTIAL. A malformed one is a CREDENTIAL_INVALID error that
 * never repeats the value (it may be a secret pasted in the wrong place).
 */
export function decodeCredential(value: string): Credential {
  const text = value.trim();
  const invalid = (why: string) =>
    new CliError(
      "CREDENTIAL_INVALID",
      `DEPLOY_CREDENTIAL is not a deploy credential (${why})`,
      "Set it to what `deploy credential` printed, whole.",
    );
  if (!text.startsWith(PREFIX)) throw invalid(`it does not start with ${PREFIX}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text.slice(PREFIX.length), "base64url").toString("utf8"));
  } catch {
    throw invalid("it does not decode");
  }
  const fields = parsed as Partial<Record<keyof Credential, unknown>> | null;
  if (typeof fields !== "object" || fields === null) throw invalid("it does not decode");
  const { apiUrl, projectSlug, apiToken, projectHash, anonFingerprint } = fields;
  if (typeof apiUrl !== "string" || !/^https?:\/\//.test(apiUrl)) throw invalid("no API URL in it");
  if (typeof projectSlug !== "string" || projectSlug === "") throw invalid("no project in it");
  if (typeof apiToken !== "string" || apiToken === "") throw invalid("no token in it");
  if (typeof projectHash !== "string" || !HEX64.test(projectHash)) throw invalid("no identity in it");
  if (typeof anonFingerprint !== "string" || !HEX64.test(anonFingerprint)) {
    throw invalid("no identity in it");
  }
  return { apiUrl, projectSlug, apiToken, projectHash, anonFingerprint };
}
