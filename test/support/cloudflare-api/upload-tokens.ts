import { randomBytes } from "node:crypto";
import { jwtVerify, SignJWT } from "jose";

/** What an assets JWT grants: uploading into a session, or attaching its assets to its script. */
export interface AssetClaims {
  purpose: "upload" | "completion";
  session: string;
  namespace: string;
  script: string;
}

/** Signs and checks the stand-in's assets JWTs (valid one hour, as Cloudflare's are). */
export class UploadTokens {
  private readonly key = randomBytes(32);

  constructor(private readonly now: () => number) {}

  sign(claims: AssetClaims): Promise<string> {
    const issued = Math.floor(this.now() / 1000);
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuedAt(issued)
      .setExpirationTime(issued + 3600)
      .sign(this.key);
  }

  /** The claims of a token this stand-in signed and that has not expired, else undefined. */
  async verify(token: string): Promise<AssetClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ["HS256"],
        currentDate: new Date(this.now()),
      });
      return payload as unknown as AssetClaims;
    } catch {
      return undefined;
    }
  }
}
