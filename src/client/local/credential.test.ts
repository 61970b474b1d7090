import { describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { decodeCredential, encodeCredential, type Credential } from "./credential.js";

const CREDENTIAL: Credential = {
  apiUrl: "https://deploy.example",
  projectSlug: "coral-birch-nkc37",
  apiToken: "sdp_secret",
  projectHash: "a".repeat(64),
  anonFingerprint: "b".repeat(64),
};

const encode = (fields: unknown) => `sdc1_${Buffer.from(JSON.stringify(fields)).toString("base64url")}`;

function why(value: string): string {
  try {
    decodeCredential(value);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    const cli = error as CliError;
    expect(cli.code).toBe("CREDENTIAL_INVALID");
    expect(cli.hint).toBe("Set it to what `deploy credential` printed, whole.");
    // The value may be a secret pasted in the wrong place: never repeated.
    expect(cli.message).not.toContain("secret");
    return cli.message;
  }
  throw new Error("decoded");
}

describe("credential", () => {
  it("encodeCredential: a prefixed base64url string that decodes to the same fields, spaces around it ignored", () => {
    const text = encodeCredential({ ...CREDENTIAL, extra: "dropped" } as Credential);
    expect(text).toMatch(/^sdc1_[A-Za-z0-9_-]+$/);
    expect(decodeCredential(`  ${text}\n`)).toEqual(CREDENTIAL);
  });

  it("decodeCredential: each missing or malformed field is named in words", () => {
    expect(why("sdp_secret")).toBe(
      "DEPLOY_CREDENTIAL is not a deploy credential (it does not start with sdc1_)",
    );
    expect(why("sdc1_%%%secret")).toBe("DEPLOY_CREDENTIAL is not a deploy credential (it does not decode)");
    expect(why(encode(null))).toContain("(it does not decode)");
    expect(why(encode("text"))).toContain("(it does not decode)");
    expect(why(encode({ ...CREDENTIAL, apiUrl: "ftp://x" }))).toContain("(no API URL in it)");
    expect(why(encode({ ...CREDENTIAL, apiUrl: 7 }))).toContain("(no API URL in it)");
    expect(why(encode({ ...CREDENTIAL, apiUrl: "see http://x" }))).toContain("(no API URL in it)");
    expect(why(encode({ ...CREDENTIAL, projectSlug: "" }))).toContain("(no project in it)");
    expect(why(encode({ ...CREDENTIAL, projectSlug: 1 }))).toContain("(no project in it)");
    expect(why(encode({ ...CREDENTIAL, apiToken: "" }))).toContain("(no token in it)");
    expect(why(encode({ ...CREDENTIAL, apiToken: null }))).toContain("(no token in it)");
    expect(why(encode({ ...CREDENTIAL, projectHash: "A".repeat(64) }))).toContain("(no identity in it)");
    expect(why(encode({ ...CREDENTIAL, projectHash: 5 }))).toContain("(no identity in it)");
    expect(why(encode({ ...CREDENTIAL, anonFingerprint: `${"b".repeat(64)}0` }))).toContain(
      "(no identity in it)",
    );
    expect(why(encode({ ...CREDENTIAL, anonFingerprint: undefined }))).toContain("(no identity in it)");
  });

  it("decodeCredential: http and https API URLs are both accepted", () => {
    expect(decodeCredential(encode({ ...CREDENTIAL, apiUrl: "http://127.0.0.1:8787" })).apiUrl).toBe(
      "http://127.0.0.1:8787",
    );
  });
});
