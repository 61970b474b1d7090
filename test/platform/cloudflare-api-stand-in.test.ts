import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";
import { uploadBucket } from "../support/multipart.js";

/** The stand-in itself, over plain HTTP: the rules the Cloudflare platform's tests rely on. */
describe("Cloudflare API stand-in", () => {
  let api: CloudflareApi;
  beforeEach(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
  });
  afterEach(async () => {
    await api.close();
  });

  const session = (token: string, manifest: unknown) =>
    fetch(
      `${api.url}/accounts/${CF.accountId}/workers/dispatch/namespaces/sites/scripts/s1/assets-upload-session`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ manifest }),
      },
    );

  it("every call: a wrong API token is refused in Cloudflare's envelope", async () => {
    const reply = await session("wrong", {});
    expect(reply.status).toBe(401);
    expect(await reply.json()).toEqual({
      success: false,
      errors: [{ code: 10000, message: "Authentication error" }],
      messages: [],
      result: null,
    });
  });

  it("assets upload: the completion JWT comes only with the last bucket, and only it opens the script upload", async () => {
    const files = Array.from({ length: 12 }, (_, i) => Buffer.from(`file ${i}`));
    const manifest: Record<string, { hash: string; size: number }> = {};
    const byHash = new Map<string, Buffer>();
    for (const [i, bytes] of files.entries()) {
      const hash = await hashAsset(bytes, `/f${i}.txt`);
      manifest[`/f${i}.txt`] = { hash, size: bytes.length };
      byHash.set(hash, bytes);
    }
    const opened = ((await (await session(CF.apiToken, manifest)).json()) as { result: unknown }).result as {
      jwt: string;
      buckets: string[][];
    };
    expect(opened.buckets.length).toBe(2);
    const upload = `${api.url}/accounts/${CF.accountId}/workers/assets/upload?base64=true`;
    const first = await uploadBucket(
      upload,
      opened.jwt,
      opened.buckets[0]!.map((hash) => ({ hash, bytes: byHash.get(hash)! })),
    );
    expect(first.status).toBe(202);
    expect(first.body.result.jwt).toBeNull();
    // The upload JWT does not open the script upload.
    const script = (jwt: string) => {
      const form = new FormData();
      const metadata = { main_module: "w.mjs", assets: { jwt } };
      form.append("metadata", new File([JSON.stringify(metadata)], "metadata", { type: "application/json" }));
      form.append(
        "files",
        new File(["export default {}"], "w.mjs", { type: "application/javascript+module" }),
      );
      return fetch(`${api.url}/accounts/${CF.accountId}/workers/dispatch/namespaces/sites/scripts/s1`, {
        method: "PUT",
        headers: { authorization: `Bearer ${CF.apiToken}` },
        body: form,
      });
    };
    expect((await script(opened.jwt)).status).toBe(400);
    const last = await uploadBucket(
      upload,
      opened.jwt,
      opened.buckets[1]!.map((hash) => ({ hash, bytes: byHash.get(hash)! })),
    );
    expect(last.status).toBe(201);
    const completion = last.body.result.jwt as string;
    expect((await script(completion)).status).toBe(200);
    expect(api.state.script("sites", "s1")?.assets).toEqual(manifest);
  });
});
