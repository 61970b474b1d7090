import { SignJWT, jwtVerify } from "jose";

/** What an upload-service token is for: uploading buckets, or completing a deploy. */
export type TokenPurpose = "upload" | "completion";

const ISSUER = "static-deploy-upload";

/**
 * Signs and verifies the upload service's tokens: HS256, an expiry, and bound to one upload
 * session (`sub`) and one purpose (`aud`), so a token of one deploy cannot serve another.
 */
export class UploadTokens {
  private readonly key: Uint8Array;

  /** `now`: milliseconds since the epoch, for the tokens' issue time. */
  constructor(
    secret: string,
    private readonly now: () => number = Date.now,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  /** Signs a token good for `purposes` on `sessionId` until `expiresAt`. */
  async sign(
    purposes: TokenPurpose[],
    sessionId: string,
    accountId: string,
    expiresAt: Date,
  ): Promise<string> {
    // JWT expiry is in whole seconds: round up, so a token never expires before its session. The
    // session's own expiry, in milliseconds, stays the bound: uploads and publishing check it.
    return new SignJWT({ acc: accountId })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(ISSUER)
      .setAudience(purposes)
      .setSubject(sessionId)
      .setIssuedAt(Math.floor(this.now() / 1000))
      .setExpirationTime(Math.ceil(expiresAt.getTime() / 1000))
      .sign(this.key);
  }

  /**
   * Returns the session id of a valid token of `purpose`, or undefined when the token is forged,
   * expired, malformed or of another purpose.
   */
  async verify(purpose: TokenPurpose, token: string, now: Date): Promise<string | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        issuer: ISSUER,
        audience: purpose,
        currentDate: now,
      });
      return typeof payload.sub === "string" ? payload.sub : undefined;
    } catch {
      return undefined;
    }
  }
}
