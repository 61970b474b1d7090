import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { once } from "node:events";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/build.js";
import { createTestProject, identity, manifestOf } from "../support/deploy-flow.js";
import { api } from "../support/http.js";
import { multipartBody } from "../support/multipart.js";
import { tempDir } from "../support/server.js";

/** Starts the real binary on free ports and reads the URLs it prints. */
async function startBinary(dataDir: string): Promise<{ child: ChildProcess; urls: Record<string, string> }> {
  const child = spawn(process.execPath, ["dist/server/main.js"], {
    env: {
      ...process.env,
      PORT: "0",
      UPLOAD_PORT: "0",
      EDGE_PORT: "0",
      METRICS_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "silent",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const urls: Record<string, string> = {};
  let output = "";
  child.stdout!.setEncoding("utf8");
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited ${code}: ${output}`)));
    child.stdout!.on("data", (text: string) => {
      output += text;
      for (const match of output.matchAll(/^(api|upload|edge)\s+listening on (\S+)/gm))
        urls[match[1]!] = match[2]!;
      if (urls.api && urls.upload && urls.edge) resolve();
    });
  });
  return { child, urls };
}

describe("deploy-server binary", () => {
  const dir = tempDir();
  beforeAll(() => ensureBuilt(), 120_000);
  afterAll(() => dir.cleanup());

  it("SIGTERM: finishes the upload in flight, refuses new connections, exits 0", async () => {
    const { child, urls } = await startBinary(dir.path);
    const p = await createTestProject(urls.api!, "shutdown");
    const bytes = Buffer.alloc(3 * 1024 * 1024, 7);
    const { manifest, byHash } = await manifestOf(p.slug, { "/big.bin": bytes });
    const prepared = await api(urls.api!, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    const [hash] = prepared.body.buckets[0];
    const { body, contentType } = multipartBody([{ hash, bytes: byHash.get(hash)! }]);
    const url = new URL(prepared.body.urls.upload);
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: "POST",
      headers: {
        authorization: `Bearer ${prepared.body.uploadJwt}`,
        "content-type": contentType,
        "content-length": body.length,
      },
    });
    const responded = once(req, "response");
    // Half the body, then the signal, then the rest: the request is in flight when the server stops.
    req.write(body.subarray(0, body.length / 2));
    // In flight for sure once the server has begun writing the part to its pack file.
    const tmp = join(dir.path, "platform", "tmp");
    const writing = () => readdirSync(tmp).some((name) => statSync(join(tmp, name)).size > 0);
    await expect.poll(writing, { timeout: 10_000 }).toBe(true);
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    // Once the signal is handled, new connections are refused (polled: the machine may be busy).
    await expect
      .poll(
        () =>
          fetch(`${urls.api}/health`).then(
            () => "accepted",
            () => "refused",
          ),
        { timeout: 10_000 },
      )
      .toBe("refused");
    req.end(body.subarray(body.length / 2));
    const [res] = (await responded) as [import("node:http").IncomingMessage];
    let text = "";
    for await (const chunk of res) text += chunk;
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(text).result.jwt).toEqual(expect.any(String));
    const [code] = await exited;
    expect(code).toBe(0);

    // What was acknowledged before the stop is there after a restart.
    const again = await startBinary(dir.path);
    try {
      const next = await api(again.urls.api!, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      });
      expect(next.status).toBe(200);
      expect(next.body.buckets).toEqual([]);
    } finally {
      again.child.kill("SIGTERM");
      await once(again.child, "exit");
    }
  });
});
