import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, hex64, identity, type TestProject } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { sample } from "../support/prometheus-text.js";
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

  it("bodies in flight: past an address's share 429 RATE_LIMITED, past the API's total 503 SERVER_BUSY, both with Retry-After and before the body, counting the bytes that arrived, nothing changed", async () => {
    const body = paddedBody(identity(p), Math.floor(1.5 * MIB));
    const sent = body.length - 100;
    const before = snapshotStore(server.dataDir);
    // 1.5 MiB from 10.0.0.1, all but its last 100 bytes sent: within its 2 MiB share and the 3 MiB total.
    const first = await deleteDomains("10.0.0.1", body.length, body.slice(0, sent));
    await untilInFlight(server.urls.ops, sent);
    // Another 1 MiB from the same address would make 2.5 MiB: over its share.
    const sameAddress = await deleteDomains("10.0.0.1", MIB, "{");
    const limited = await sameAddress.answer;
    expect(limited.status).toBe(429);
    expect(errorCode(limited)).toBe("RATE_LIMITED");
    expect(limited.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    // As much from 10.0.0.2 (3 MiB less 200 bytes in all), then 1 KiB from 10.0.0.3: over the total.
    const second = await deleteDomains("10.0.0.2", body.length, body.slice(0, sent));
    await untilInFlight(server.urls.ops, 2 * sent);
    const busy = await (await deleteDomains("10.0.0.3", 1024, "{")).answer;
    expect(busy.status).toBe(503);
    expect(errorCode(busy)).toBe("SERVER_BUSY");
    expect(busy.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
    expect(snapshotStore(server.dataDir)).toEqual(before);

    // Once the held bodies are in and answered, their bytes are given back.
    first.finish(body.slice(sent));
    second.finish(body.slice(sent));
    expect((await first.answer).status).toBe(200);
    expect((await second.answer).status).toBe(200);
    expect(await inFlight(server.urls.ops)).toBe(0);
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

describe("request bodies: declared lengths and slow bodies", () => {
  /** POST /projects from `from` declaring `length` bytes, of which `first` is sent. */
  const create = (apiUrl: string, from: string, length: number, first: string, limitMs = 5_000) =>
    holdRequest(
      apiUrl,
      "POST",
      "/projects",
      [
        ["X-Forwarded-For", from],
        ["Content-Type", "application/json"],
        ["Content-Length", String(length)],
      ],
      first,
      limitMs,
    );

  it("bodies in flight: two POST /projects declaring 32 MiB and sending nothing hold none of the budget, another client's create is read at once", async () => {
    // The default budget (64 MiB, 32 MiB an address) and the default pace: 16 KiB a second over 10 s.
    const server = await startTestServer({ trustProxy: true });
    const held: HeldRequest[] = [];
    try {
      held.push(await create(server.urls.api, "10.1.0.1", 32 * MIB, "{", 30_000));
      held.push(await create(server.urls.api, "10.1.0.2", 32 * MIB, "{", 30_000));
      await untilInFlight(server.urls.ops, 2);
      const other = await api(server.urls.api, "POST", "/projects", {
        body: { projectHash: hex64("other-hash"), anonFingerprint: hex64("other-fp") },
        headers: { "x-forwarded-for": "10.1.0.3" },
      });
      expect(other.status).toBe(201);
      // What the two hold is the byte each sent, not the 64 MiB they announced.
      expect(await inFlight(server.urls.ops)).toBe(2);
    } finally {
      for (const request of held) request.socket.destroy();
      await server.stop();
    }
  });

  describe("with a minimum pace of 1 KiB a second over windows of 400 ms", () => {
    let server: Awaited<ReturnType<typeof startTestServer>>;
    beforeAll(async () => {
      server = await startTestServer({
        trustProxy: true,
        bodyPace: { minBytesPerSecond: 1024, windowMs: 400 },
      });
    });
    afterAll(async () => server.stop());

    it("POST /projects: a body trickled below the minimum pace is cut off with 408 REQUEST_TIMEOUT, its bytes given back, nothing changed", async () => {
      const before = snapshotStore(server.dataDir);
      const trickle = await create(server.urls.api, "10.2.0.1", 64 * 1024, "{");
      // 10 bytes every 50 ms: 200 bytes a second, under the 1,024 asked for.
      const sending = setInterval(() => {
        if (!trickle.socket.destroyed) trickle.socket.write(" ".repeat(10));
      }, 50);
      try {
        const response = await trickle.answer;
        expect(response.status).toBe(408);
        expect(errorCode(response)).toBe("REQUEST_TIMEOUT");
      } finally {
        clearInterval(sending);
      }
      expect(await inFlight(server.urls.ops)).toBe(0);
      expect(snapshotStore(server.dataDir)).toEqual(before);
    });

    it("POST /projects: declared bodies that send nothing are cut off with 408 REQUEST_TIMEOUT within a window or two", async () => {
      const idle = [
        await create(server.urls.api, "10.2.1.1", 32 * MIB, "{"),
        await create(server.urls.api, "10.2.1.2", 32 * MIB, ""),
      ];
      for (const request of idle) {
        const response = await request.answer;
        expect(response.status).toBe(408);
        expect(errorCode(response)).toBe("REQUEST_TIMEOUT");
      }
    });

    it("POST /projects: a body sent steadily above the minimum pace is read whole, however long it takes", async () => {
      const body = paddedBody(
        { projectHash: hex64("steady-hash"), anonFingerprint: hex64("steady-fp") },
        48 * 1024,
      );
      const steady = await create(server.urls.api, "10.2.2.1", body.length, "");
      // 2 KiB every 25 ms (80 KiB a second) for 600 ms: longer than a window, faster than the pace.
      let offset = 0;
      const sending = setInterval(() => {
        if (offset >= body.length) return clearInterval(sending);
        steady.finish(body.slice(offset, offset + 2048));
        offset += 2048;
      }, 25);
      try {
        const response = await steady.answer;
        expect(response.status).toBe(201);
      } finally {
        clearInterval(sending);
      }
    });
  });
});

/** The request body bytes the API holds now, from its `api_body_bytes_in_flight` gauge. */
async function inFlight(opsUrl: string): Promise<number> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  return sample(text, "api_body_bytes_in_flight") ?? 0;
}

/** Waits until the API holds at least `bytes` of bodies (the bytes written are read as they arrive). */
async function untilInFlight(opsUrl: string, bytes: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await inFlight(opsUrl)) < bytes) {
    if (Date.now() > deadline) throw new Error(`the API never held ${bytes} bytes of bodies`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
