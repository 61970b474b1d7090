import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SiteFile } from "../../src/client/scan/walk-state.js";

/** One scripted answer of the stand-in for the upload service (or a proxy in front of it). */
export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A 200 in the upload service's envelope, with a completion token when given. */
export const ok = (jwt?: string): Answer => ({
  status: 200,
  body: JSON.stringify({ success: true, errors: [], result: jwt === undefined ? {} : { jwt } }),
});

/** The stand-in on 127.0.0.1 and five small files on disk, keyed by made-up hashes. */
export interface UploadStandIn {
  url: string;
  /** Answers of the next requests, in order; a 200 without a token once they run out. */
  answers: Answer[];
  /** Requests received. */
  received: number;
  /** The method and headers of the last request. */
  last: { method: string; headers: Record<string, string | string[] | undefined> } | undefined;
  hashes: string[];
  files: Map<string, SiteFile>;
  close(): Promise<void>;
}

/** Starts the stand-in: each request's body is read whole, then answered with the next answer. */
export async function startUploadStandIn(): Promise<UploadStandIn> {
  const dir = await mkdtemp(join(tmpdir(), "upload-stand-in-"));
  const hashes = ["a", "b", "c", "d", "e"].map((letter) => letter.repeat(32));
  const files = new Map<string, SiteFile>();
  for (const [i, hash] of hashes.entries()) {
    const path = `page-${i}.html`;
    await writeFile(join(dir, path), `<p>${i}</p>`);
    files.set(hash, { path, absPath: join(dir, path), size: `<p>${i}</p>`.length, mtimeMs: 0, ino: 0 });
  }
  const server = createServer((req, res) => {
    standIn.received++;
    standIn.last = { method: req.method ?? "", headers: req.headers };
    req.resume();
    req.on("end", () => {
      const answer = standIn.answers.shift() ?? ok();
      res.writeHead(answer.status, answer.headers ?? { "content-type": "application/json" });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const standIn: UploadStandIn = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`,
    answers: [],
    received: 0,
    last: undefined,
    hashes,
    files,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
  return standIn;
}
