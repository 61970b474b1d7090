import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hex64 } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { startTestServer } from "../support/server.js";

/** POST /projects as the client `from` (our trusted proxy's X-Forwarded-For), with a fresh identity. */
function createFrom(apiUrl: string, from: string, label: string) {
  return api(apiUrl, "POST", "/projects", {
    body: { projectHash: hex64(`${label}-hash`), anonFingerprint: hex64(`${label}-fp`) },
    headers: { "x-forwarded-for": from },
  });
}

describe("per-address limits: a client is its IPv4 address or its IPv6 /64", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    // One create a minute per address: the second from the same key is refused.
    server = await startTestServer({ trustProxy: true, createLimitPerAddress: 1 });
  });
  afterAll(async () => server.stop());

  it("POST /projects: two addresses of one IPv6 /64 share the per-address limit, the second is 429 RATE_LIMITED", async () => {
    expect((await createFrom(server.urls.api, "2001:db8:1:2::1", "v6-a")).status).toBe(201);
    const second = await createFrom(server.urls.api, "2001:db8:1:2:ffff:ffff:ffff:fffe", "v6-b");
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe("RATE_LIMITED");
    expect(second.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  });

  it("POST /projects: an address of another /64 has a limit of its own", async () => {
    expect((await createFrom(server.urls.api, "2001:db8:1:3::1", "v6-c")).status).toBe(201);
  });

  it("POST /projects: an IPv4-mapped IPv6 address shares its IPv4 address's limit", async () => {
    expect((await createFrom(server.urls.api, "198.51.100.7", "v4-a")).status).toBe(201);
    const mapped = await createFrom(server.urls.api, "::ffff:198.51.100.7", "v4-b");
    expect(mapped.status).toBe(429);
    expect(mapped.body.error.code).toBe("RATE_LIMITED");
  });
});
