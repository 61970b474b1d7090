import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/client/index.js";
import { RATE_KNOWN_AFTER_MS } from "../../src/client/progress.js";
import { startTestBed, writeSite, type TestBed } from "./helpers.js";

/** How long the proxy holds each request: a slow server, during which the line must stay alive. */
const HOLD_MS = 400;
const FILES = 25;

interface Arrival {
  at: number;
  method: string;
  path: string;
}

/** A proxy that holds every request HOLD_MS, then forwards it: `/accounts/…` to the upload service, the rest to the API. */
async function startHoldingProxy(): Promise<{
  server: Server;
  url: string;
  arrivals: Arrival[];
  targets: { api: string; upload: string };
}> {
  const arrivals: Arrival[] = [];
  const targets = { api: "", upload: "" };
  const server = createServer((req, res) => {
    arrivals.push({ at: Date.now(), method: req.method ?? "", path: req.url ?? "" });
    const target = new URL(req.url ?? "/", req.url?.startsWith("/accounts/") ? targets.upload : targets.api);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      setTimeout(() => {
        const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.end(Buffer.concat(chunks));
      }, HOLD_MS);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, arrivals, targets };
}

describe("deploy: progress on a terminal", () => {
  let bed: TestBed;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  beforeAll(async () => {
    proxy = await startHoldingProxy();
    bed = await startTestBed({ uploadPublicUrl: proxy.url, bucketMaxFiles: 10 });
    proxy.targets.api = bed.server.urls.api;
    proxy.targets.upload = bed.server.urls.upload;
  });
  afterAll(async () => {
    proxy?.server.closeAllConnections();
    proxy?.server.close();
    await bed?.stop();
  });

  it("deploy progress: every phase's first frame is drawn by the time its request leaves, the line stays alive while the server is slow, no ETA before a rate is known, files and bytes agree", async () => {
    const site = join(bed.dir, "site");
    await writeSite(
      site,
      Object.fromEntries(Array.from({ length: FILES }, (_, i) => [`f${i}.bin`, Buffer.alloc(1024, i + 1)])),
    );
    const frames: { at: number; text: string }[] = [];
    let stdout = "";
    const code = await runCli([site], {
      stdout: { write: (text: string) => (stdout += text), isTTY: true, columns: 200 },
      stderr: {
        write: (text: string) => frames.push({ at: Date.now(), text }),
        isTTY: true,
        columns: 200,
      },
      env: {
        ...bed.env,
        DEPLOY_API_URL: proxy.url,
        DEPLOY_UPLOAD_CONCURRENCY: "1",
        DEPLOY_HASH_THREADS: "0",
      },
      cwd: "/",
    });
    expect(code, frames.map((f) => f.text).join("")).toBe(0);
    expect(stdout).toContain("Deployed ");

    const phases: [RegExp, string][] = [
      [/^GET \/limits$/, "Asking the server for its limits…"],
      [/^POST \/projects$/, "Creating the project…"],
      [/^POST \/projects\/[^/]+\/prepare$/, `Preparing the deploy (${FILES} files)…`],
      [/^POST \/accounts\//, "Uploading "],
      [/^POST \/projects\/[^/]+\/deploy$/, "Publishing…"],
    ];
    const requests = proxy.arrivals.map((a) => ({ ...a, line: `${a.method} ${a.path}` }));
    for (const [route, label] of phases) {
      const arrivals = requests.filter((r) => route.test(r.line));
      expect(arrivals.length, label).toBeGreaterThan(0);
      const first = frames.find((f) => f.text.includes(label));
      expect(first, label).toBeDefined();
      // Drawn when the phase began: before its first request reached the server.
      expect(first!.at, label).toBeLessThanOrEqual(arrivals[0]!.at + 200);
      // Redrawn while the server holds the request: never a frozen line.
      for (const arrival of arrivals) {
        const during = frames.filter(
          (f) => f.text.includes(label) && f.at > arrival.at && f.at < arrival.at + HOLD_MS,
        );
        expect(during.length, `${label} while ${arrival.line} was held`).toBeGreaterThan(0);
      }
    }
    expect(frames.some((f) => f.text.includes("Hashing "))).toBe(true);

    // No ETA before a rate is known: a second after the first bytes left (give or take the
    // moment the first upload's request reached the proxy).
    const firstUpload = requests.find((r) => r.line.startsWith("POST /accounts/"))!;
    for (const frame of frames.filter((f) => f.text.includes("ETA"))) {
      expect(frame.at - firstUpload.at, frame.text).toBeGreaterThanOrEqual(RATE_KNOWN_AFTER_MS - 100);
    }
    // Files and bytes move together: each file is 1 KiB, so bytes sent are the files sent in KiB.
    const uploading = frames
      .map((f) => /Uploading \[[#-]+\] (\d+)\/(\d+) files · ([\d.]+ (?:B|KiB))\/([\d.]+ KiB)/.exec(f.text))
      .filter((match) => match !== null);
    expect(uploading.length).toBeGreaterThan(3);
    for (const [, files, total, sent, totalBytes] of uploading) {
      expect(total).toBe(String(FILES));
      expect(totalBytes).toBe(`${FILES}.0 KiB`);
      expect(sent).toBe(files === "0" ? "0 B" : `${Number(files).toFixed(1)} KiB`);
    }
    // Once everything is sent, the line says the server is still storing it, not an ETA.
    expect(frames.some((f) => /sent; the server is storing the last 1 request… /.test(f.text))).toBe(true);
  });
});
