import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { clientAddress } from "../../src/server/client-address.js";

/** What clientAddress says of a request with `headers`, with `env` as the Node adapter gives it. */
async function addressOf(
  trustProxy: boolean,
  headers: Record<string, string>,
  env: unknown = { incoming: { socket: { remoteAddress: "10.0.0.9" } } },
): Promise<string> {
  const app = new Hono().get("/", (c) => c.text(clientAddress(c, trustProxy)));
  return (await app.request("/", { headers }, env)).text();
}

describe("clientAddress: the address limits and quotas count a request against", () => {
  it("clientAddress: without TRUST_PROXY the socket's peer, whatever X-Forwarded-For says", async () => {
    expect(await addressOf(false, { "x-forwarded-for": "203.0.113.7" })).toBe("10.0.0.9");
  });

  it("clientAddress: with TRUST_PROXY the last X-Forwarded-For entry, the one our proxy appended, trimmed", async () => {
    expect(await addressOf(true, { "x-forwarded-for": "198.51.100.1, 203.0.113.7 " })).toBe("203.0.113.7");
    expect(await addressOf(true, { "x-forwarded-for": "203.0.113.8" })).toBe("203.0.113.8");
  });

  it("clientAddress: with TRUST_PROXY and no usable X-Forwarded-For, the socket's peer", async () => {
    expect(await addressOf(true, {})).toBe("10.0.0.9");
    expect(await addressOf(true, { "x-forwarded-for": "198.51.100.1, " })).toBe("10.0.0.9");
  });

  it("clientAddress: with no socket to ask, unknown", async () => {
    expect(await addressOf(false, {}, {})).toBe("unknown");
    expect(await addressOf(false, {}, { incoming: {} })).toBe("unknown");
  });
});
