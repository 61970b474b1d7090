import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/server/config.js";
import { listen } from "../../src/server/listeners.js";
import { createTestProject, deployFiles, identity, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { closedWithin, openSocket, rawMessage, rawRequest } from "../support/raw-http.js";
import { startTestServer, tempDir } from "../support/server.js";
import { ensureBuilt } from "../support/build.js";
import { type ServerProcess, spawnServer } from "../support/server-process.js";
import { prepareFiles, rawUpload } from "../support/upload-flow.js";
import { expectNoInternals } from "./contract-errors.js";

const ORIGIN = "https://console.example";
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g;
const API_TOKEN = /sdp_[A-Za-z0-9_-]{43}/g;

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("secrets and exposure (the real binary, debug logs)", () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  const secrets: string[] = [];
  // A deployed project of the binary, made before any test: every test may use it, in any order.
  let a: TestProject;
  let first: Awaited<ReturnType<typeof deployFiles>>;
  let idle: Promise<{ ms: number; received: Buffer }> | undefined;

  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir("deploy-exposure-");
    server = await spawnServer(dir.path, {
      LOG_LEVEL: "debug",
      CORS_ORIGIN: ORIGIN,
      SWEEP_INTERVAL_SECONDS: "1",
      // The slow clients' POST /projects count against the create limit: without one, whichever
      // test runs after them can still create.
      CREATE_LIMIT_PER_ADDRESS: "0",
    });
    const socket = await openSocket(server.urls.api);
    socket.write(rawMessage("GET", "/health", [["Host", new URL(server.urls.api).host]]));
    // Closed by the server, or a failure once 15 s have passed: the hang guard of the test below.
    idle = closedWithin(socket, 15_000);
    a = await createTestProject(server.urls.api, "exposure-a");
    first = await deployFiles(server.urls.api, a, {
      "/index.html": "<h1>exposed?</h1>",
      "/x.bin": Buffer.alloc(5000, 7),
    });
    secrets.push(a.token, first.prepared.uploadJwt);
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    dir?.cleanup();
  });

  it("exposure: after a full scenario no raw apiToken or JWT is in either database or the logs", async () => {
    const b = await createTestProject(server.urls.api, "exposure-b");
    secrets.push(b.token);
    // A deploy with content, so an upload token and a separate completion token exist.
    const second = await prepareFiles(server.urls.api, b, { "/index.html": "<h1>b</h1>", "/y.txt": "why" });
    secrets.push(second.prepared.uploadJwt);
    const parts = (second.prepared.buckets as string[][])
      .flat()
      .map((hash) => ({ hash, bytes: second.byHash.get(hash)! }));
    const uploaded = await uploadBucket(second.prepared.urls.upload, second.prepared.uploadJwt, parts);
    expect(uploaded.status).toBe(201);
    secrets.push(uploaded.body.result.jwt);
    const done = await api(server.urls.api, "POST", `/projects/${b.slug}/deploy`, {
      token: b.token,
      body: { ...identity(b), deployId: second.prepared.deployId, completionJwt: uploaded.body.result.jwt },
    });
    expect(done.status).toBe(200);
    // Tokens where they do not belong: query strings, bodies, other projects, a bad domain.
    await api(server.urls.api, "POST", `/projects/${a.slug}/prepare?token=${a.token}`, {
      token: a.token,
      body: { ...identity(a), manifest: { [`/${a.slug}/${a.token}`]: { hash: "0".repeat(32), size: -1 } } },
    });
    await api(server.urls.api, "POST", `/projects/${a.slug}/domains`, {
      token: b.token,
      body: { ...identity(a), domain: a.token },
    });
    await api(server.urls.api, "POST", `/projects/${a.slug}/domains`, {
      token: a.token,
      body: { ...identity(a), domain: `${a.token}.example.com` },
    });
    await api(server.urls.api, "POST", `/projects/${a.slug}/deploy`, {
      token: a.token,
      body: { ...identity(a), deployId: first.prepared.deployId, completionJwt: uploaded.body.result.jwt },
    });
    await api(server.urls.api, "POST", "/projects", {
      raw: `{"apiToken":"${a.token}"`,
      headers: { "content-type": "application/json" },
    });
    await rawUpload(`${second.prepared.urls.upload}&jwt=${second.prepared.uploadJwt}`, {
      token: second.prepared.uploadJwt,
      contentType: "multipart/form-data; boundary=x",
      body: `--x\r\nContent-Disposition: form-data; name="${a.token}"\r\n\r\nQQ==\r\n--x--\r\n`,
    });
    await edgeGet(server.urls.edge, `${a.slug}.localhost`, `/${a.token}`, {
      authorization: `Bearer ${a.token}`,
    });
    // Wait for a sweep after all this (every second here) to run and log at debug.
    const sweeps = () => server.output().match(/"msg":"sweep"/g)?.length ?? 0;
    const sweptBefore = sweeps();
    await expect.poll(sweeps, { timeout: 15_000 }).toBeGreaterThan(sweptBefore);

    const logs = server.output();
    expect(logs).toMatch(/"msg":"request"/);
    const haystacks: [string, string][] = [["logs", logs]];
    for (const file of filesUnder(dir.path)) {
      // Uploaded content, which this test put its tokens into on purpose.
      if (file.includes(join("platform", "blobs")) || file.includes(join("platform", "packs"))) continue;
      haystacks.push([file.slice(dir.path.length), readFileSync(file).toString("latin1")]);
    }
    expect(haystacks.map(([name]) => name)).toEqual(
      expect.arrayContaining(["/metadata.sqlite", "/platform/platform.sqlite"]),
    );
    for (const [name, text] of haystacks) {
      for (const secret of secrets) expect(text.includes(secret), `${name} holds a raw token`).toBe(false);
      expect(text.match(JWT) ?? [], `${name} holds a JWT`).toEqual([]);
      expect(text.match(API_TOKEN) ?? [], `${name} holds an apiToken`).toEqual([]);
    }
  });

  it("exposure: CORS is exactly as configured, on preflights and answers alike, never echoing the Origin", async () => {
    for (const path of [
      "/projects",
      `/projects/${a.slug}/prepare`,
      `/projects/${a.slug}`,
      "/health",
      "/nowhere",
    ]) {
      const preflight = await fetch(`${server.urls.api}${path}`, {
        method: "OPTIONS",
        headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
      });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin"), path).toBe(ORIGIN);
      expect(preflight.headers.get("access-control-allow-methods"), path).toBe("GET, POST, DELETE, OPTIONS");
      expect(preflight.headers.get("access-control-allow-headers"), path).toBe("Authorization, Content-Type");
      expect(preflight.headers.get("access-control-max-age"), path).toMatch(/^\d+$/);
      expect(preflight.headers.get("access-control-allow-credentials"), path).toBeNull();
      expect(preflight.headers.get("vary"), path).toContain("Origin");
    }
    const answers = [
      await api(server.urls.api, "GET", "/health", { headers: { origin: "https://evil.example" } }),
      await api(server.urls.api, "POST", "/projects", {
        raw: "nope",
        headers: { "content-type": "application/json", origin: "null" },
      }),
      await api(server.urls.api, "GET", "/nowhere"),
      await api(server.urls.api, "PUT", "/projects"),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 400, 404, 405]);
    for (const response of answers) {
      expect(response.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    }
    // The API is configured for browsers; the upload service sends no CORS grant; the edge sends
    // Cloudflare Pages' `*` on public site content (issue 11), never the Origin, never credentials.
    const upload = await rawUpload(`${server.urls.upload}/accounts/x/workers/assets/upload?base64=true`, {});
    expect(upload.status).toBe(404);
    const uploadHead = await fetch(`${server.urls.upload}/`, { headers: { origin: ORIGIN } });
    expect(uploadHead.headers.get("access-control-allow-origin")).toBeNull();
    const edge = await edgeGet(server.urls.edge, `${a.slug}.localhost`, "/", { origin: ORIGIN });
    expect(edge.headers["access-control-allow-origin"]).toBe("*");
    expect(edge.headers["access-control-allow-credentials"]).toBeUndefined();
  });

  it("exposure: the edge sends nosniff on content and errors alike", async () => {
    for (const [host, path] of [
      [`${a.slug}.localhost`, "/"],
      [`${a.slug}.localhost`, "/missing"],
      ["nobody.localhost", "/"],
      [`${a.slug}.localhost`, "/%zz"],
    ] as const) {
      const response = await edgeGet(server.urls.edge, host, path);
      expect(response.headers["x-content-type-options"], `${host}${path}`).toBe("nosniff");
    }
  });

  it("exposure: an idle keep-alive connection is closed after the keep-alive timeout (5 s)", async () => {
    // Opened in beforeAll: its five idle seconds pass while the tests above run.
    const closed = await idle!;
    expect(closed.received.toString("latin1")).toMatch(/^HTTP\/1\.1 200/);
    // Not before the keep-alive timeout (closedWithin fails if it is never closed).
    expect(closed.ms).toBeGreaterThanOrEqual(4_000);
  }, 20_000);

  it("exposure: slow clients holding many connections do not stop others being served", async () => {
    const host = new URL(server.urls.api).host;
    const slow = await Promise.all(Array.from({ length: 64 }, () => openSocket(server.urls.api)));
    for (const [i, socket] of slow.entries()) {
      socket.on("error", () => undefined);
      // Half a request: some send a partial header block, some a body far shorter than declared.
      socket.write(
        i % 2
          ? `POST /projects HTTP/1.1\r\nHost: ${host}\r\nX-Slow: `
          : `POST /projects HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"projectHash":`,
      );
    }
    try {
      // Served at all: were the slow clients holding the server, these would wait for the 30 s
      // headers timeout to free it, past this test's timeout (the hang guard, not a speed claim).
      for (let i = 0; i < 20; i++) {
        const response = await api(server.urls.api, "GET", "/health");
        expect(response.status).toBe(200);
      }
    } finally {
      for (const socket of slow) socket.destroy();
    }
  }, 20_000);

  it("exposure: error bodies carry no stack trace or internal path, whatever the status", async () => {
    const bodies = [
      await rawRequest(
        server.urls.api,
        `POST /projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{"a":`,
      ),
      await rawRequest(
        server.urls.api,
        `GET /projects/%ff%fe/prepare HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      ),
      await rawRequest(
        server.urls.upload,
        `POST /accounts/x/workers/assets/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      ),
      await rawRequest(
        server.urls.edge,
        `GET /%c0 HTTP/1.1\r\nHost: ${a.slug}.localhost\r\nConnection: close\r\n\r\n`,
      ),
    ];
    for (const response of bodies) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expectNoInternals(response.body.toString("utf8"), `${response.status}`, [dir.path]);
    }
  });
});

describe("exposure when the server fails inside (500s)", () => {
  it("500s: the API, the upload service and the edge answer without a stack trace or path", async () => {
    const server = await startTestServer();
    try {
      const p = await createTestProject(server.urls.api, "fails-inside");
      await deployFiles(server.urls.api, p, { "/index.html": "soon broken" });
      const prepared = await prepareFiles(server.urls.api, p, { "/new.txt": "new" });
      // The platform database goes away under the running server.
      await server.platform.close();
      const body = JSON.stringify({ ...identity(p), manifest: {} });
      const fromApi = await rawRequest(
        server.urls.api,
        rawMessage(
          "POST",
          `/projects/${p.slug}/prepare`,
          [
            ["Host", "x"],
            ["Authorization", `Bearer ${p.token}`],
            ["Content-Type", "application/json"],
            ["Content-Length", String(Buffer.byteLength(body))],
            ["Connection", "close"],
          ],
          body,
        ),
      );
      expect(fromApi.status).toBe(502);
      const upload = new URL(prepared.prepared.urls.upload);
      const fromUpload = await rawRequest(
        server.urls.upload,
        rawMessage("POST", upload.pathname + upload.search, [
          ["Host", "x"],
          ["Authorization", `Bearer ${prepared.prepared.uploadJwt}`],
          ["Content-Type", "multipart/form-data; boundary=x"],
          ["Content-Length", "0"],
          ["Connection", "close"],
        ]),
      );
      expect(fromUpload.status).toBe(500);
      expect(JSON.parse(fromUpload.body.toString())).toEqual({
        success: false,
        errors: [{ code: 10000, message: "internal error" }],
        messages: [],
        result: null,
      });
      const fromEdge = await rawRequest(
        server.urls.edge,
        rawMessage("GET", "/", [
          ["Host", `${p.slug}.localhost`],
          ["Connection", "close"],
        ]),
      );
      expect(fromEdge.status).toBe(500);
      expect(fromEdge.body.toString()).toBe("Internal Server Error\n");
      await server.services.store.close();
      const fromStore = await api(server.urls.api, "POST", "/projects", {
        body: { projectHash: "a".repeat(64), anonFingerprint: "b".repeat(64) },
      });
      expect(fromStore.status).toBe(500);
      expect(fromStore.body).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
      for (const response of [fromApi, fromUpload, fromEdge]) {
        expectNoInternals(response.body.toString(), `${response.status}`, [server.dataDir]);
      }
    } finally {
      await server.stop().catch(() => undefined);
    }
  });
});

describe("listener timeouts", () => {
  it("listen: every listener is created with the header, request and keep-alive timeouts SECURITY.md states", async () => {
    const { timeouts } = loadConfig({});
    expect(timeouts).toEqual({ headersMs: 30_000, requestMs: 300_000, keepAliveMs: 5_000 });
    const listener = await listen("127.0.0.1", 0, { timeouts });
    try {
      expect(listener.server.headersTimeout).toBe(30_000);
      expect(listener.server.requestTimeout).toBe(300_000);
      expect(listener.server.keepAliveTimeout).toBe(5_000);
    } finally {
      await listener.close();
    }
  });

  it("listen: a client that never finishes its headers is cut off when HEADERS_TIMEOUT_SECONDS is up", async () => {
    const dir = tempDir("deploy-slowloris-");
    const server = await spawnServer(dir.path, { HEADERS_TIMEOUT_SECONDS: "2" });
    try {
      const socket = await openSocket(server.urls.api);
      socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: `);
      const trickle = setInterval(() => socket.write("a"), 200);
      // Cut by the 2 s headers timeout: without it the request timeout (300 s) would let the
      // trickle go on past closedWithin's 10 s, a failure.
      const closed = await closedWithin(socket, 10_000);
      clearInterval(trickle);
      // Not before the timeout.
      expect(closed.ms).toBeGreaterThanOrEqual(1_900);
    } finally {
      await server.stop();
      dir.cleanup();
    }
  }, 30_000);
});
