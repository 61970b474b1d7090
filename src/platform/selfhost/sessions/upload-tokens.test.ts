import { decodeJwt, decodeProtectedHeader, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { UploadTokens } from "./upload-tokens.js";

const SECRET = "a secret of the upload service, long enough";
const NOW = Date.UTC(2026, 10, 25, 3, 0, 0, 250);

const tokens = () => new UploadTokens(SECRET, () => NOW);

/** A token signed with the service's key, its claims written by hand. */
function handMade(claims: { iss?: string; aud?: string; sub?: unknown; exp?: number }) {
  const jwt = new SignJWT(claims as Record<string, unknown>).setProtectedHeader({ alg: "HS256" });
  return jwt.sign(new TextEncoder().encode(SECRET));
}

describe("UploadTokens", () => {
  it("sign: HS256, issued by the upload service at the clock's second, for the purposes, the session and the account", async () => {
    const token = await tokens().sign(["upload", "completion"], "sess1", "acc1", new Date(NOW + 60_000));
    expect(decodeProtectedHeader(token)).toEqual({ alg: "HS256", typ: "JWT" });
    expect(decodeJwt(token)).toEqual({
      acc: "acc1",
      iss: "static-deploy-upload",
      aud: ["upload", "completion"],
      sub: "sess1",
      iat: Math.floor(NOW / 1000),
      exp: Math.ceil((NOW + 60_000) / 1000),
    });
  });

  it("sign: the expiry is rounded up to the second, so the token never ends before its session", async () => {
    const expiresAt = new Date(NOW + 60_001);
    const token = await tokens().sign(["upload"], "sess1", "acc1", expiresAt);
    expect(decodeJwt(token).exp).toBe(Math.floor(expiresAt.getTime() / 1000) + 1);
    expect(await tokens().verify("upload", token, new Date(NOW + 60_001))).toBe("sess1");
  });

  it("verify: the session of a valid token of the purpose, until its expiry", async () => {
    const token = await tokens().sign(["upload", "completion"], "sess1", "acc1", new Date(NOW + 60_000));
    expect(await tokens().verify("upload", token, new Date(NOW))).toBe("sess1");
    expect(await tokens().verify("completion", token, new Date(NOW + 59_999))).toBe("sess1");
  });

  it("verify: undefined once expired, judged by the date given, not the system clock", async () => {
    const token = await tokens().sign(["upload"], "sess1", "acc1", new Date(NOW + 60_000));
    const exp = Math.ceil((NOW + 60_000) / 1000) * 1000;
    expect(await tokens().verify("upload", token, new Date(exp - 1))).toBe("sess1");
    expect(await tokens().verify("upload", token, new Date(exp))).toBeUndefined();
    expect(await tokens().verify("upload", token, new Date(NOW + 3_600_000))).toBeUndefined();
  });

  it("verify: undefined for a token of another purpose, another key, another issuer, or no session", async () => {
    const upload = await tokens().sign(["upload"], "sess1", "acc1", new Date(NOW + 60_000));
    expect(await tokens().verify("completion", upload, new Date(NOW))).toBeUndefined();
    const forged = await new UploadTokens("another secret", () => NOW).sign(
      ["upload"],
      "sess1",
      "acc1",
      new Date(NOW + 60_000),
    );
    expect(await tokens().verify("upload", forged, new Date(NOW))).toBeUndefined();
    const exp = Math.ceil((NOW + 60_000) / 1000);
    const otherIssuer = await handMade({ iss: "someone-else", aud: "upload", sub: "sess1", exp });
    expect(await tokens().verify("upload", otherIssuer, new Date(NOW))).toBeUndefined();
    const numberSubject = await handMade({ iss: "static-deploy-upload", aud: "upload", sub: 7, exp });
    expect(await tokens().verify("upload", numberSubject, new Date(NOW))).toBeUndefined();
    const noSubject = await handMade({ iss: "static-deploy-upload", aud: "upload", exp });
    expect(await tokens().verify("upload", noSubject, new Date(NOW))).toBeUndefined();
    // The hand-made tokens are refused for their claims, not their form: with the right ones, valid.
    const right = await handMade({ iss: "static-deploy-upload", aud: "upload", sub: "sess1", exp });
    expect(await tokens().verify("upload", right, new Date(NOW))).toBe("sess1");
  });

  it("verify: undefined for a token signed with another algorithm or not a token at all", async () => {
    const hs512 = await new SignJWT({ sub: "sess1", iss: "static-deploy-upload", aud: "upload" })
      .setProtectedHeader({ alg: "HS512" })
      .setExpirationTime(Math.ceil((NOW + 60_000) / 1000))
      .sign(new TextEncoder().encode(SECRET));
    expect(await tokens().verify("upload", hs512, new Date(NOW))).toBeUndefined();
    expect(await tokens().verify("upload", "not.a.token", new Date(NOW))).toBeUndefined();
  });
});
