import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mayIssueCertificate } from "../../src/core/operations/index.js";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";

describe("mayIssueCertificate", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
    server.clock.freeze();
  });
  afterAll(() => server.stop());

  it("mayIssueCertificate: yes for a project's generated and revision hostnames until the very millisecond of its expiry, then no", async () => {
    const p = await createTestProject(server.urls.api, "ask-boundary");
    const { deployed } = await deployFiles(server.urls.api, p, { "/index.html": "boundary" });
    const expiresAt = Date.parse(deployed.project.expiresAt as string);
    const names = [`${p.slug}.localhost`, `${deployed.revisionId as string}--${p.slug}.localhost`];
    server.clock.advanceTo(expiresAt - 1);
    for (const name of names) expect(await mayIssueCertificate(server.services, name), name).toBe(true);
    server.clock.advanceTo(expiresAt);
    for (const name of names) expect(await mayIssueCertificate(server.services, name), name).toBe(false);
  });

  it("mayIssueCertificate: no for a revision hostname of a project that does not exist", async () => {
    expect(await mayIssueCertificate(server.services, "abcdefghij--nobody-here-aaaaa.localhost")).toBe(false);
  });
});
