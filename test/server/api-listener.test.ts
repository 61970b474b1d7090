import type { Socket } from "node:net";
import { expect, it } from "vitest";
import { createTestProject, identity, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { sample } from "../support/prometheus-text.js";
import { openSocket, rawMessage, rawRequest } from "../support/raw-http.js";
import { startTestServer } from "../support/server.js";

/** DELETE /projects/:slug/domains from `from` (X-Forwarded-For), `length` bytes declared, `body` sent. */
function deleteDomains(p: TestProject, from: string, length: number, body: string): Buffer {
  return rawMessage(
    "DELETE",
    `/projects/${p.slug}/domains`,
    [
      ["Host", "x"],
      ["Connection", "close"],
      ["X-Forwarded-For", from],
      ["Authorization", `Bearer ${p.token}`],
      ["Content-Type", "application/json"],
      ["Content-Length", String(length)],
    ],
    body,
  );
}

it("apiListener: the body budget is BODY_BYTES_PER_ADDRESS for one address (429) and BODY_BYTES_IN_FLIGHT in all (503)", async () => {
  // The process is started inside the test: per-test coverage (Stryker) sees the listener built.
  const server = await startTestServer({
    trustProxy: true,
    bodyBytesPerAddress: 1000,
    bodyBytesInFlight: 1800,
  });
  const held: Socket[] = [];
  try {
    const p = await createTestProject(server.urls.api, "api-listener-budget");
    const whole = JSON.stringify(identity(p));
    /** 900 bytes announced from `from`, 899 sent (and counted): the last never comes while the test runs. */
    const hold = async (from: string) => {
      const before = await inFlight(server.urls.ops);
      const socket = await openSocket(server.urls.api);
      held.push(socket);
      socket.write(deleteDomains(p, from, 900, whole.padEnd(899)));
      while ((await inFlight(server.urls.ops)) < before + 899) await new Promise((r) => setTimeout(r, 10));
    };
    const send = (from: string) => rawRequest(server.urls.api, deleteDomains(p, from, whole.length, whole));

    await hold("10.0.0.1");
    // 899 + this body is over 10.0.0.1's 1000 bytes.
    const limited = await send("10.0.0.1");
    expect(limited.status).toBe(429);
    // 899 more from 10.0.0.2 makes 1798 in all: this body more, from a third address, is over it.
    await hold("10.0.0.2");
    const busy = await send("10.0.0.3");
    expect(busy.status).toBe(503);
  } finally {
    for (const socket of held) socket.destroy();
    await server.stop();
  }
});

it("apiListener: prepares past PREPARE_LIMIT_PER_ADDRESS in its window are 429 RATE_LIMITED; the next window prepares again", async () => {
  // Started inside the test, as above: the limiters are built while it runs.
  const server = await startTestServer({ prepareLimitPerAddress: 2, prepareLimitWindowSeconds: 60 });
  try {
    const p = await createTestProject(server.urls.api, "api-listener-prepare");
    const prepare = () =>
      api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest: {} },
      });
    expect((await prepare()).status).toBe(200);
    expect((await prepare()).status).toBe(200);
    const limited = await prepare();
    expect([limited.status, limited.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    server.clock.advance(60);
    expect((await prepare()).status).toBe(200);
  } finally {
    await server.stop();
  }
});

/** The request body bytes the API holds now (its `api_body_bytes_in_flight` gauge). */
async function inFlight(opsUrl: string): Promise<number> {
  return sample(await (await fetch(`${opsUrl}/metrics`)).text(), "api_body_bytes_in_flight") ?? 0;
}
