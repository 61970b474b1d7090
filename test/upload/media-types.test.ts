import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, deployFiles, identity, manifestOf } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";

describe("media types of shared content", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("upload: a part's declared type applies to its own project only, not to others holding the bytes", async () => {
    const script = "console.log('shared')";
    const a = await createTestProject(server.urls.api, "declares-html");
    const { manifest, byHash } = await manifestOf(a.slug, { "/app.js": script });
    const prepared = (
      await api(server.urls.api, "POST", `/projects/${a.slug}/prepare`, {
        token: a.token,
        body: { ...identity(a), manifest },
      })
    ).body;
    const [hash] = prepared.buckets[0];
    const uploaded = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
      { hash, bytes: byHash.get(hash)!, contentType: "text/html" },
    ]);
    await api(server.urls.api, "POST", `/projects/${a.slug}/deploy`, {
      token: a.token,
      body: { ...identity(a), deployId: prepared.deployId, completionJwt: uploaded.body.result.jwt },
    });
    expect((await edgeGet(server.urls.edge, `${a.slug}.localhost`, "/app.js")).headers["content-type"]).toBe(
      "text/html",
    );

    // The same bytes in another project are sent again by it (deduplication is per project), here
    // without a Content-Type: its path's type applies, not the type A declared.
    const b = await createTestProject(server.urls.api, "reuses-script");
    const { prepared: reused } = await deployFiles(server.urls.api, b, { "/app.js": script });
    expect(reused.buckets).toEqual([[hash]]);
    const served = await edgeGet(server.urls.edge, `${b.slug}.localhost`, "/app.js");
    expect(served.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(served.body.toString()).toBe(script);
  });
});
