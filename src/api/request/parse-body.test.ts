import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { DeployError } from "../../core/errors.js";
import { parseBody } from "./parse-body.js";
import { deploySchema, identitySchema } from "./schemas.js";

const HEX = "a".repeat(64);

/** What parseBody throws for this body and Content-Type, as `{ code, message }`, or "parsed". */
async function outcome(
  body: string,
  contentType = "application/json",
  schema: typeof identitySchema | typeof deploySchema = identitySchema,
): Promise<{ code: string; message: string } | "parsed"> {
  const app = new Hono();
  app.post("/", async (c) => {
    await parseBody(c, schema);
    return c.text("parsed");
  });
  app.onError((error, c) => {
    if (!(error instanceof DeployError)) throw error;
    return c.json({ code: error.code, message: error.message });
  });
  const response = await app.request("/", { method: "POST", body, headers: { "content-type": contentType } });
  const text = await response.text();
  return text === "parsed" ? "parsed" : (JSON.parse(text) as { code: string; message: string });
}

describe("parseBody", () => {
  it("parseBody: INVALID_JSON says whether the body is not JSON or not an object", async () => {
    expect(await outcome("{")).toEqual({ code: "INVALID_JSON", message: "request body is not valid JSON" });
    expect(await outcome("[1]")).toEqual({
      code: "INVALID_JSON",
      message: "request body must be a JSON object",
    });
  });

  it("parseBody: 415 UNSUPPORTED_MEDIA_TYPE unless the Content-Type starts with application/json", async () => {
    const body = JSON.stringify({ projectHash: HEX, anonFingerprint: HEX });
    expect(await outcome(body, "application/json; charset=utf-8")).toBe("parsed");
    expect(await outcome(body, "Application/JSON ;charset=utf-8")).toBe("parsed");
    for (const type of ["text/plain; x=application/json", "application/jsonx", "application/json-seq"]) {
      expect(await outcome(body, type), type).toEqual({
        code: "UNSUPPORTED_MEDIA_TYPE",
        message: "Content-Type must be application/json",
      });
    }
  });

  it("parseBody: INVALID_REQUEST names a missing field, and a nested one by its path", async () => {
    const deploy = { projectHash: HEX, anonFingerprint: HEX, deployId: "d", completionJwt: "j" };
    const nested = await outcome(
      JSON.stringify({ ...deploy, siteRules: { redirects: 42 } }),
      undefined,
      deploySchema,
    );
    expect(nested).toMatchObject({ code: "INVALID_REQUEST" });
    expect((nested as { message: string }).message).toMatch(/^siteRules\["redirects"\]: ./);
    const missing = await outcome(JSON.stringify({ projectHash: HEX }));
    expect(missing).toMatchObject({ code: "INVALID_REQUEST" });
    expect((missing as { message: string }).message).toMatch(/^anonFingerprint: ./);
  });
});
