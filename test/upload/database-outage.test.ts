import { pino } from "pino";
import { afterEach, expect, it } from "vitest";
import { createTestProject } from "../support/deploy-flow.js";
import { multipartBody } from "../support/multipart.js";
import { describePostgres, TEST_DATABASE_URL, testPostgres } from "../support/postgres.js";
import { startServer } from "../../src/server/index.js";
import { TestClock } from "../support/clock.js";
import { ON_LOOPBACK, tempDir } from "../support/server.js";
import { startTcpProxy } from "../support/tcp-proxy.js";
import { prepareFiles } from "../support/upload-flow.js";

interface LogLine {
  level: number;
  msg: string;
  role?: string;
  method?: string;
  path?: string;
  reason?: string;
}

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

await describePostgres("the upload service on a database gone away", () => {
  it("upload: 503 (10011) with Retry-After: 1, logged as a warning with the reason, not as an error; the same bucket is taken once the database is back", async () => {
    const target = new URL(TEST_DATABASE_URL);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    closers.push(() => proxy.close());
    const via = new URL(TEST_DATABASE_URL);
    via.host = `127.0.0.1:${proxy.port}`;
    const lines: LogLine[] = [];
    const logger = pino(
      { level: "info" },
      { write: (text: string) => lines.push(JSON.parse(text) as LogLine) },
    );
    const dir = tempDir("deploy-upload-outage-");
    closers.push(async () => dir.cleanup());
    const server = await startServer({
      clock: new TestClock(),
      logger,
      ...ON_LOOPBACK,
      dataDir: dir.path,
      databaseUrl: via.toString(),
      databaseSchema: testPostgres().schema,
    });
    closers.push(() => server.close());
    const p = await createTestProject(server.urls.api, "upload-outage");
    const content = Buffer.from("<p>sent during an outage</p>");
    const { prepared } = await prepareFiles(server.urls.api, p, { "/index.html": content });
    const { body, contentType } = multipartBody([{ hash: prepared.buckets[0][0], bytes: content }]);
    const send = () =>
      fetch(prepared.urls.upload, {
        method: "POST",
        headers: { authorization: `Bearer ${prepared.uploadJwt}`, "content-type": contentType },
        body,
      });

    await proxy.cut();
    const from = lines.length;
    const refused = await send();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({
      success: false,
      errors: [{ code: 10011, message: "the service's database is unavailable; retry shortly" }],
      messages: [],
      result: null,
    });
    const path = new URL(prepared.urls.upload).pathname;
    const logged = lines.slice(from).filter((line) => line.path === path && line.msg !== "request");
    expect(logged).toEqual([
      expect.objectContaining({
        level: 40,
        msg: "database unavailable",
        role: "upload",
        method: "POST",
        reason: expect.stringMatching(/\w/),
      }),
    ]);

    await proxy.restore();
    const taken = await send();
    expect(taken.status).toBe(201);
  });
});
