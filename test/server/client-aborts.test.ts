import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pino } from "pino";
import { type RunningServer, startServer } from "../../src/server/index.js";
import { TestClock } from "../support/clock.js";
import { createTestProject, identity, type TestProject } from "../support/deploy-flow.js";
import { openSocket, rawMessage } from "../support/raw-http.js";
import { ON_LOOPBACK, tempDir } from "../support/server.js";
import { prepareFiles } from "../support/upload-flow.js";

interface LogLine {
  level: number;
  msg: string;
  path?: string;
  status?: number;
}

describe("client aborts", () => {
  const lines: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: () => void }[] = [];
  let dir: ReturnType<typeof tempDir>;
  let server: RunningServer;
  let p: TestProject;

  beforeAll(async () => {
    dir = tempDir("deploy-aborts-");
    const logger = pino(
      { level: "debug" },
      {
        write(text: string) {
          const line = JSON.parse(text) as LogLine;
          lines.push(line);
          for (const waiter of waiters.filter((w) => w.match(line))) waiter.resolve();
        },
      },
    );
    server = await startServer({
      clock: new TestClock(),
      logger,
      ...ON_LOOPBACK,
      dataDir: dir.path,
    });
    p = await createTestProject(server.urls.api, "aborts");
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  /** Resolves once the request log has the line that ends the request to `path`. */
  const requestLogged = (path: string) =>
    new Promise<void>((resolve) => {
      if (lines.some((line) => line.msg === "request" && line.path === path)) return resolve();
      waiters.push({ match: (line) => line.msg === "request" && line.path === path, resolve });
    });

  /**
   * Sends a head announcing 10,000 body bytes, waits for the server to take the request (its
   * `100 Continue`), sends the first bytes and resets the connection.
   */
  async function abortMidBody(baseUrl: string, target: string, headers: [string, string][], first: string) {
    const socket = await openSocket(baseUrl);
    socket.on("error", () => undefined);
    const taken = new Promise((resolve) => socket.once("data", resolve));
    const head = [["Host", "x"], ["Content-Length", "10000"], ["Expect", "100-continue"], ...headers];
    socket.write(rawMessage("POST", target, head as [string, string][]));
    expect(String(await taken)).toMatch(/^HTTP\/1\.1 100 Continue/);
    socket.write(first);
    socket.resetAndDestroy();
  }

  it("client aborts: a body cut off mid-way is logged at info as the client's doing, never as an error (API and upload service)", async () => {
    const prepared = await prepareFiles(server.urls.api, p, { "/a.txt": "never whole" });
    const upload = new URL(prepared.prepared.urls.upload);
    const logged = Promise.all([
      requestLogged(`/projects/${p.slug}/prepare`),
      requestLogged(upload.pathname),
    ]);
    const from = lines.length;
    await abortMidBody(
      server.urls.api,
      `/projects/${p.slug}/prepare`,
      [
        ["Authorization", `Bearer ${p.token}`],
        ["Content-Type", "application/json"],
      ],
      JSON.stringify(identity(p)).slice(0, 40),
    );
    await abortMidBody(
      server.urls.upload,
      upload.pathname + upload.search,
      [
        ["Authorization", `Bearer ${prepared.prepared.uploadJwt}`],
        ["Content-Type", "multipart/form-data; boundary=x"],
      ],
      `--x\r\nContent-Disposition: form-data; name="${prepared.prepared.buckets[0][0]}"\r\n\r\nAAAA`,
    );
    await logged;
    const these = lines.slice(from);
    expect(these.filter((line) => line.level >= 50)).toEqual([]);
    const aborted = these.filter((line) => line.msg === "client aborted the request");
    expect(aborted.map((line) => [line.level, line.path])).toEqual([
      [30, `/projects/${p.slug}/prepare`],
      [30, upload.pathname],
    ]);
    const ended = these.filter((line) => line.msg === "request").map((line) => line.status);
    expect(ended).toEqual([499, 499]);
  });
});
