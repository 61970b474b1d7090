import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, identity, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import {
  closedWithin,
  openSocket,
  parseResponse,
  rawMessage,
  type RawResponse,
} from "../support/raw-http.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

const MIB = 1024 * 1024;

/** A request whose head and first body bytes are sent, the rest held back until `finish`. */
interface HeldRequest {
  socket: Socket;
  /** Resolves with the answer once the server closes the connection. */
  answer: Promise<RawResponse>;
  /** Sends the rest of the body (the server answers and, with `Connection: close`, closes). */
  finish(rest: Buffer | string): void;
}

async function holdRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: [string, string][],
  first: Buffer | string,
  limitMs = 5_000,
): Promise<HeldRequest> {
  const socket = await openSocket(baseUrl);
  const closed = closedWithin(socket, limitMs);
  socket.write(rawMessage(method, path, [["Host", "x"], ["Connection", "close"], ...headers], first));
  const answer = closed.then(({ received }) => parseResponse(received));
  // A test may drop a held request without its answer.
  answer.catch(() => undefined);
  return { socket, answer, finish: (rest) => socket.write(rest) };
}

/** A JSON body for `p`'s routes, padded with spaces to exactly `bytes`. */
function paddedBody(fields: Record<string, unknown>, bytes: number): string {
  const json = JSON.stringify(fields);
  return json + " ".repeat(bytes - Buffer.byteLength(json));
}

function errorCode(response: RawResponse): string {
  return JSON.parse(response.body.toString("utf8")).error.code;
}

describe("request bodies: credentials before bodies", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let p: TestProject;
  beforeAll(async () => {
    server = await startTestServer();
    p = await createTestProject(server.urls.api, "bodies");
  });
  afterAll(async () => server.stop());

  const routes = () =>
    [
      ["POST", `/projects/${p.slug}/prepare`],
      ["POST", `/projects/${p.slug}/deploy`],
      ["POST", `/projects/${p.slug}/domains`],
      ["DELETE", `/projects/${p.slug}/domains`],
      ["DELETE", `/projects/${p.slug}`],
    ] as const;

  it("project routes: a missing or unknown token is answered 401 before the body arrives, nothing changed", async () => {
    const before = snapshotStore(server.dataDir);
    for (const [method, path] of routes()) {
      for (const auth of [[], [["Authorization", "Bearer sdp_unknown"]]] as [string, string][][]) {
        // 31 MiB announced, 20 bytes sent: an answer can only come from the headers.
        const held = await holdRequest(
          server.urls.api,
          method,
          path,
          [["Content-Type", "application/json"], ["Content-Length", String(31 * MIB)], ...auth],
          '{"projectHash":"000',
        );
        const response = await held.answer;
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(errorCode(response)).toBe("UNAUTHORIZED");
      }
    }
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });
});

describe("request bodies: bytes in flight", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let p: TestProject;
  beforeAll(async () => {
    // Addresses come from X-Forwarded-For here, so one test can speak for several clients.
    server = await startTestServer({
      trustProxy: true,
      bodyBytesInFlight: 3 * MIB,
      bodyBytesPerAddress: 2 * MIB,
    });
    p = await createTestProject(server.urls.api, "in-flight");
  });
  afterAll(async () => server.stop());

  const deleteDomains = (from: string, length: number, first: string) =>
    holdRequest(
      server.urls.api,
      "DELETE",
      `/projects/${p.slug}/domains`,
      [
        ["X-Forwarded-For", from],
        ["Authorization", `Bearer ${p.token}`],
        ["Content-Type", "application/json"],
        ["Content-Length", String(length)],
      ],
      first,
    );

  it("bodies in flight: past an address's share 429 RATE_LIMITED, past the API's total 503 SERVER_BUSY, both with Retry-After and before the body, nothing changed", async () => {
    const body = paddedBody(identity(p), Math.floor(1.5 * MIB));
    const before = snapshotStore(server.dataDir);
    // 1.5 MiB held open from 10.0.0.1: within its 2 MiB share and the 3 MiB total.
    const first = await deleteDomains("10.0.0.1", body.length, body.slice(0, 100));
    // Another 1 MiB from the same address would make 2.5 MiB: over its share.
    const sameAddress = await deleteDomains("10.0.0.1", MIB, "{");
    const limited = await sameAddress.answer;
    expect(limited.status).toBe(429);
    expect(errorCode(limited)).toBe("RATE_LIMITED");
    expect(limited.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    // 1.5 MiB more from 10.0.0.2 (3 MiB in all), then 1 byte more from 10.0.0.3: over the total.
    const second = await deleteDomains("10.0.0.2", body.length, body.slice(0, 100));
    const busy = await (await deleteDomains("10.0.0.3", 64, "{")).answer;
    expect(busy.status).toBe(503);
    expect(errorCode(busy)).toBe("SERVER_BUSY");
    expect(busy.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(snapshotStore(server.dataDir)).toEqual(before);

    // Once the held bodies are in and answered, their bytes are given back.
    first.finish(body.slice(100));
    second.finish(body.slice(100));
    expect((await first.answer).status).toBe(200);
    expect((await second.answer).status).toBe(200);
    const again = await api(server.urls.api, "DELETE", `/projects/${p.slug}/domains`, {
      token: p.token,
      body: identity(p),
      headers: { "x-forwarded-for": "10.0.0.3" },
    });
    expect(again.status).toBe(200);
  });

  it("bodies in flight: a chunked body is counted as it arrives and refused once over the share, nothing changed", async () => {
    const before = snapshotStore(server.dataDir);
    const held = await deleteDomains("10.0.1.1", Math.floor(1.5 * MIB), "{");
    const socket = await openSocket(server.urls.api);
    const closed = closedWithin(socket, 5_000);
    socket.write(
      rawMessage("DELETE", `/projects/${p.slug}/domains`, [
        ["Host", "x"],
        ["Connection", "close"],
        ["X-Forwarded-For", "10.0.1.1"],
        ["Authorization", `Bearer ${p.token}`],
        ["Content-Type", "application/json"],
        ["Transfer-Encoding", "chunked"],
      ]),
    );
    // Chunks of 64 KiB, never the last one: the refusal must come from counting.
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const sending = setInterval(() => {
      if (!socket.destroyed)
        socket.write(Buffer.concat([Buffer.from("10000\r\n"), chunk, Buffer.from("\r\n")]));
    }, 5);
    try {
      const response = parseResponse((await closed).received);
      expect(response.status).toBe(429);
      expect(errorCode(response)).toBe("RATE_LIMITED");
      expect(snapshotStore(server.dataDir)).toEqual(before);
    } finally {
      clearInterval(sending);
      held.socket.destroy();
    }
  });
});
