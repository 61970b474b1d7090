import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestProject, identity, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

/** The defaults: far above what a person or a CI pipeline needs in a minute. */
const PER_PROJECT = 60;
const PER_ADDRESS = 120;

describe("prepare rate limits (defaults)", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());
  // Each test starts in a window of its own: the address's count of another test is behind it.
  beforeEach(() => server.clock.advance(60));

  const prepare = (p: TestProject, headers: Record<string, string> = {}) =>
    api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest: {} },
      headers,
    });

  it("prepare: past 60 a minute for one project 429 RATE_LIMITED with Retry-After, nothing changed; the next window prepares again", async () => {
    const p = await createTestProject(server.urls.api, "limit-project");
    for (let i = 0; i < PER_PROJECT; i++) expect((await prepare(p)).status).toBe(200);
    const before = snapshotStore(server.dataDir);
    const limited = await prepare(p);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Even a request that is malformed apart from its token counts as the project's, and is refused.
    const malformed = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { manifest: "nope" },
    });
    expect(malformed.status).toBe(429);
    expect(snapshotStore(server.dataDir)).toEqual(before);
    server.clock.advance(retryAfter);
    expect((await prepare(p)).status).toBe(200);
  });

  it("prepare: past 120 a minute from one address 429 RATE_LIMITED whichever project, nothing changed", async () => {
    const projects = [
      await createTestProject(server.urls.api, "limit-address-1"),
      await createTestProject(server.urls.api, "limit-address-2"),
      await createTestProject(server.urls.api, "limit-address-3"),
    ];
    for (let i = 0; i < PER_ADDRESS; i++) {
      expect((await prepare(projects[i % 2]!)).status).toBe(200);
    }
    const before = snapshotStore(server.dataDir);
    const limited = await prepare(projects[2]!);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMITED");
    expect(limited.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    // Without a valid token too: the address is counted before anything else.
    const anonymous = await api(server.urls.api, "POST", `/projects/${projects[2]!.slug}/prepare`, {
      body: { ...identity(projects[2]!), manifest: {} },
    });
    expect(anonymous.status).toBe(429);
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });
});
