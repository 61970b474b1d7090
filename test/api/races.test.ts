import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, deployFiles, identity, manifestOf } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";

describe("requests racing on one project", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("deploy and domain change at once: the edge answers where the API says the project is", async () => {
    for (let round = 0; round < 5; round++) {
      const p = await createTestProject(server.urls.api, `race-${round}`);
      await deployFiles(server.urls.api, p, { "/index.html": "v1" });
      const { manifest, byHash } = await manifestOf(p.slug, { "/index.html": `v2-${round}` });
      const prepared = (
        await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
          token: p.token,
          body: { ...identity(p), manifest },
        })
      ).body;
      const [hash] = prepared.buckets[0];
      const uploaded = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
        { hash, bytes: byHash.get(hash)! },
      ]);
      const domain = `race-${round}.example.com`;
      const [deployed, assigned] = await Promise.all([
        api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
          token: p.token,
          body: { ...identity(p), deployId: prepared.deployId, completionJwt: uploaded.body.result.jwt },
        }),
        api(server.urls.api, "POST", `/projects/${p.slug}/domains`, {
          token: p.token,
          body: { ...identity(p), domain },
        }),
      ]);
      expect(deployed.status).toBe(200);
      expect(assigned.status).toBe(200);
      const onDomain = await edgeGet(server.urls.edge, domain, "/");
      expect(onDomain.status).toBe(200);
      expect(onDomain.body.toString()).toBe(`v2-${round}`);
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(404);
    }
  });
});
