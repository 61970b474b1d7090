import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";

describe("deploy flow", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("deploy: a two-file site is served at its production and revision hosts", async () => {
    const p = await createTestProject(server.urls.api);
    const { deployed } = await deployFiles(server.urls.api, p, {
      "/index.html": "<h1>hello</h1>",
      "/app.js": "console.log(1)",
    });
    const home = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
    expect(home.status).toBe(200);
    expect(home.body.toString()).toBe("<h1>hello</h1>");
    const revisionHost = new URL(deployed.revisionUrl).hostname;
    const script = await edgeGet(server.urls.edge, revisionHost, "/app.js");
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toMatch(/javascript/);
  });
});
