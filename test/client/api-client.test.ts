import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/client/net/api-client.js";
import { NetworkError } from "../../src/client/errors.js";
import { defaultRetryPolicy } from "../../src/client/net/retry.js";

/** What the stub does with the n-th request it receives (1-based), after reading its body. */
type Script = (n: number, req: IncomingMessage, res: ServerResponse) => void;

/** A deploy API stub on 127.0.0.1 that counts the requests that reached it. */
interface Stub {
  url: string;
  received: string[];
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function startStub(script: Script, port = 0): Promise<Stub> {
  const received: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received.push(`${req.method} ${req.url}`);
      script(received.length, req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const created = { project: { projectSlug: "brave-otter-k3x9q" }, apiToken: "sdp_token" };
const identity = { projectHash: "a".repeat(64), anonFingerprint: "b".repeat(64) };

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function clientOf(url: string, waits: number[], sleep?: (ms: number) => Promise<void>): ApiClient {
  const policy = defaultRetryPolicy({
    random: () => 0,
    sleep: async (ms) => {
      waits.push(ms);
      await sleep?.(ms);
    },
  });
  return new ApiClient(url, identity, policy);
}

describe("ApiClient retries", () => {
  it("createProject: a response lost after the server acted is not retried: one project is created", async () => {
    const stub = await startStub((n, req, res) => {
      // The project is made, then the connection drops before the answer leaves.
      if (n === 1) return void req.socket.destroy();
      answer(res, 201, created);
    });
    const waits: number[] = [];
    const error = await clientOf(stub.url, waits)
      .createProject()
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toContain("could not create a project");
    expect(stub.received).toEqual(["POST /projects"]);
    expect(waits).toEqual([]);
  });

  it("createProject: a 5xx is not retried (the server may have created the project before failing)", async () => {
    const stub = await startStub((_n, _req, res) =>
      answer(res, 502, { error: { code: "INTERNAL", message: "x" } }),
    );
    await expect(clientOf(stub.url, []).createProject()).rejects.toMatchObject({
      status: 502,
      code: "INTERNAL",
    });
    expect(stub.received).toEqual(["POST /projects"]);
  });

  it("createProject: a 429 is retried after its Retry-After (the server did nothing)", async () => {
    const stub = await startStub((n, _req, res) => {
      if (n === 1)
        return answer(res, 429, { error: { code: "RATE_LIMITED", message: "slow" } }, { "retry-after": "3" });
      answer(res, 201, created);
    });
    const waits: number[] = [];
    expect(await clientOf(stub.url, waits).createProject()).toEqual(created);
    expect(stub.received).toEqual(["POST /projects", "POST /projects"]);
    expect(waits).toEqual([3000]);
  });

  it("createProject: a 408 REQUEST_TIMEOUT is retried (the body never arrived whole: the server did nothing)", async () => {
    const stub = await startStub((n, _req, res) => {
      if (n === 1)
        return answer(res, 408, {
          error: {
            code: "REQUEST_TIMEOUT",
            message: "request body arrived slower than 16384 bytes a second",
          },
        });
      answer(res, 201, created);
    });
    const waits: number[] = [];
    expect(await clientOf(stub.url, waits).createProject()).toEqual(created);
    expect(stub.received).toEqual(["POST /projects", "POST /projects"]);
    expect(waits).toHaveLength(1);
  });

  it("prepare: a 408 REQUEST_TIMEOUT is retried like a 503", async () => {
    const stub = await startStub((n, _req, res) => {
      if (n === 1) return answer(res, 408, { error: { code: "REQUEST_TIMEOUT", message: "slow" } });
      answer(res, 200, { deployId: "d" });
    });
    const waits: number[] = [];
    expect(await clientOf(stub.url, waits).prepare("brave-otter-k3x9q", "sdp_token", {})).toEqual({
      deployId: "d",
    });
    expect(stub.received).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it("createProject: a refused connection is retried (nothing was sent)", async () => {
    const free = await startStub(() => {});
    const port = Number(new URL(free.url).port);
    await free.close();
    let stub: Stub | undefined;
    const waits: number[] = [];
    // The server comes up while the client waits to try again.
    const client = clientOf(`http://127.0.0.1:${port}`, waits, async () => {
      stub ??= await startStub((_n, _req, res) => answer(res, 201, created), port);
    });
    expect(await client.createProject()).toEqual(created);
    expect(waits).toHaveLength(1);
    expect(stub?.received).toEqual(["POST /projects"]);
  });

  it("prepare: a lost response is retried (preparing again changes nothing)", async () => {
    const stub = await startStub((n, req, res) => {
      if (n === 1) return void req.socket.destroy();
      answer(res, 200, { deployId: "d" });
    });
    const waits: number[] = [];
    expect(await clientOf(stub.url, waits).prepare("brave-otter-k3x9q", "sdp_token", {})).toEqual({
      deployId: "d",
    });
    expect(stub.received).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });
});
