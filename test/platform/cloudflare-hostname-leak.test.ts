import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import type { CloudflareApi } from "../support/cloudflare-api/server.js";
import type { TestDnsServer } from "../support/dns-server.js";
import { type CloudflareProcessBed, startCloudflareProcessBed } from "../support/cloudflare-process-bed.js";
import { TestClock } from "../support/clock.js";
import { sweepExpired } from "../../src/core/operations/index.js";
import type { RunningProcess } from "../../src/server/start.js";
import type { TestBed } from "../client/helpers.js";

/**
 * Issue 34: a custom hostname assigned to a project that was never deployed is created at
 * Cloudflare; dropping the name or the project must delete it there too. Through the API (the
 * client always deploys first), against the Cloudflare API stand-in.
 */
describe("Cloudflare: no custom hostname outlives its project, deployed or not", () => {
  let cloudflare: CloudflareProcessBed;
  let api: CloudflareApi;
  let dns: TestDnsServer;
  let bed: TestBed<RunningProcess>;
  const clock = new TestClock();
  let n = 0;

  beforeAll(async () => {
    cloudflare = await startCloudflareProcessBed(clock);
    ({ api, dns, bed } = cloudflare);
  });
  afterAll(async () => {
    await cloudflare?.stop();
  });

  const customHostnames = () => [...api.state.zone(CF.zoneId).values()].map((h) => h.hostname);

  /** Creates a project (never deployed) and assigns it `domain`, whose CNAME points at the edge. */
  async function undeployedWithDomain(domain: string) {
    n += 1;
    const identity = { projectHash: `${n}`.padStart(64, "a"), anonFingerprint: `${n}`.padStart(64, "b") };
    const created = await call("POST", "/projects", undefined, identity);
    expect(created.status).toBe(201);
    const { project, apiToken } = created.body as { project: { projectSlug: string }; apiToken: string };
    dns.setCname(domain, "edge.sites.test");
    const assigned = await call("POST", `/projects/${project.projectSlug}/domains`, apiToken, {
      ...identity,
      domain,
    });
    expect(assigned.status).toBe(200);
    expect(customHostnames()).toContain(domain);
    return { slug: project.projectSlug, token: apiToken, identity };
  }

  async function call(method: string, path: string, token: string | undefined, body: unknown) {
    const reply = await fetch(`${bed.server.urls.api}${path}`, {
      method,
      headers: {
        "content-type": "application/json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
    });
    return { status: reply.status, body: (await reply.json()) as unknown };
  }

  it("DELETE domains: the custom hostname of a project never deployed is deleted at Cloudflare", async () => {
    const { slug, token, identity } = await undeployedWithDomain("reset.example.com");
    const reset = await call("DELETE", `/projects/${slug}/domains`, token, identity);
    expect(reset.status).toBe(200);
    expect(customHostnames()).not.toContain("reset.example.com");
  });

  it("DELETE project: the custom hostname of a project never deployed is deleted at Cloudflare", async () => {
    const { slug, token, identity } = await undeployedWithDomain("gone.example.com");
    const deleted = await call("DELETE", `/projects/${slug}`, token, identity);
    expect(deleted.status).toBe(200);
    expect(customHostnames()).not.toContain("gone.example.com");
  });

  it("DELETE domains, in a loop: nothing is left at Cloudflare", async () => {
    for (let i = 0; i < 3; i += 1) {
      const { slug, token, identity } = await undeployedWithDomain(`loop${i}.example.com`);
      expect((await call("DELETE", `/projects/${slug}/domains`, token, identity)).status).toBe(200);
      expect((await call("DELETE", `/projects/${slug}`, token, identity)).status).toBe(200);
    }
    expect(customHostnames()).toEqual([]);
  });

  it("sweep: a project never deployed that expires takes its custom hostname with it", async () => {
    await undeployedWithDomain("expired.example.com");
    const { projectTtlSeconds, projectPurgeGraceSeconds } = bed.server.config;
    clock.advance(projectTtlSeconds + projectPurgeGraceSeconds + 1);
    const swept = await sweepExpired(bed.server.services);
    expect(swept.projectsPurged).toBeGreaterThanOrEqual(1);
    expect(customHostnames()).not.toContain("expired.example.com");
  });

  it("sweep: a custom hostname no project names (a crashed request's) is deleted once past the grace", async () => {
    const zone = api.state.zone(CF.zoneId);
    const ssl = { method: "http", type: "dv", status: "pending_validation" };
    const old = new Date(clock.now() - 3_600_000).toISOString();
    zone.set("crashed", {
      id: "crashed",
      hostname: "crashed.example.com",
      status: "pending",
      ssl,
      created_at: old,
    });
    await sweepExpired(bed.server.services);
    expect(customHostnames()).not.toContain("crashed.example.com");
  });
});
