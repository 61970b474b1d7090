import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { sql } from "kysely";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../core/asset-hash.js";
import { openPlatformDatabase } from "../platform/selfhost/state/sqlite-database.js";
import { DiskPackStorage } from "../platform/selfhost/content/disk/disk-pack-storage.js";
import { ContentDirectory } from "../platform/selfhost/content/content-directory.js";
import { type PlatformDatabase, rowsOf } from "../platform/selfhost/state/platform-db.js";
import { freeBytesOf, type StorageLimits } from "../platform/selfhost/quotas/storage-limits.js";
import { SelfHostedUploadStorage } from "../platform/selfhost/adapters/selfhost-upload-storage.js";
import { UploadTokens } from "../platform/selfhost/sessions/upload-tokens.js";
import { UploadSessions } from "../platform/selfhost/sessions/upload-sessions.js";
import { Pacer } from "../shared/event-loop.js";
import { Metrics } from "../shared/observability/metrics.js";
import { createUploadApp } from "./upload-app.js";
import { UploadService, type UploadServiceOptions } from "./upload-service.js";

const ACCOUNT = "a".repeat(32);
const NOW = 1_800_000_000_000;
const PATH = "/index.html";
const CONTENT = Buffer.from("<p>uploaded through app.request</p>");
const UPLOAD = `/accounts/${ACCOUNT}/workers/assets/upload?base64=true`;

interface LogLine {
  level: number;
  msg: string;
  method?: string;
  path?: string;
  reason?: string;
  err?: { message?: string };
}

let dir: string;
let database: PlatformDatabase;
let storage: DiskPackStorage;
let hash: string;
let jwt: string;
let lines: LogLine[];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "upload-app-"));
  database = await openPlatformDatabase(dir);
  storage = new DiskPackStorage(dir);
  hash = await hashAsset(CONTENT, PATH);
  const sessions = new UploadSessions(database);
  const expiresAt = NOW + 3_600_000;
  await sessions.open(
    { id: "session-1", projectSlug: "blue-fox-k3", expiresAt },
    [{ path: PATH, hash, size: CONTENT.length }],
    NOW,
    new Pacer(60_000),
  );
  jwt = await new UploadTokens("secret", () => NOW).sign(
    ["upload"],
    "session-1",
    ACCOUNT,
    new Date(expiresAt),
  );
  lines = [];
});
afterEach(async () => {
  await storage.close();
  await database.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** The upload app on this test's database and folder (with `limits`' free-space guard), its log lines collected. */
function app(
  options: {
    metrics?: Metrics;
    service?: Partial<UploadServiceOptions>;
    limits?: Pick<StorageLimits, "minFreeBytes" | "freeBytes">;
  } = {},
) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const service = new UploadService({
    accountId: ACCOUNT,
    storage: new SelfHostedUploadStorage({
      sessions: new UploadSessions(database),
      content: new ContentDirectory(dir),
      packStorage: storage,
      storage: options.limits,
    }),
    tokens: new UploadTokens("secret", () => NOW),
    maxAssetBytes: 1024 * 1024,
    maxFiles: 2_000,
    maxRequestBytes: 1024 * 1024,
    now: () => NOW,
    ...options.service,
  });
  return createUploadApp({ service, logger: pino(sink), metrics: options.metrics });
}

/**
 * A multipart body of base64 parts named by hash, as Cloudflare's SDK sends it (name and
 * filename), or with the disposition and headers given.
 */
function bucket(parts: { name: string; bytes: Buffer; disposition?: string; type?: string }[]): string {
  let text = "";
  for (const part of parts) {
    const disposition = part.disposition ?? `form-data; name="${part.name}"; filename="${part.name}"`;
    text += `--b\r\nContent-Disposition: ${disposition}\r\n`;
    if (part.type !== undefined) text += `Content-Type: ${part.type}\r\n`;
    text += `\r\n${part.bytes.toString("base64")}\r\n`;
  }
  return `${text}--b--\r\n`;
}

/** Opens another session of the same project with `files`; its upload token and each path's hash. */
async function openSession(id: string, files: Record<string, Buffer>) {
  const entries = await Promise.all(
    Object.entries(files).map(async ([path, bytes]) => ({
      path,
      hash: await hashAsset(bytes, path),
      size: bytes.length,
    })),
  );
  const expiresAt = NOW + 3_600_000;
  await new UploadSessions(database).open(
    { id, projectSlug: "blue-fox-k3", expiresAt },
    entries,
    NOW,
    new Pacer(60_000),
  );
  const token = await new UploadTokens("secret", () => NOW).sign(
    ["upload"],
    id,
    ACCOUNT,
    new Date(expiresAt),
  );
  return { token, hashes: entries.map((entry) => entry.hash) };
}

/** The packs recorded: their sizes. */
async function packSizes(): Promise<number[]> {
  const rows = await rowsOf(database.db, sql<{ size: number }>`SELECT size FROM packs`);
  return rows.map((row) => Number(row.size));
}

/** The media type recorded for `hash` in session `id`: as a part declared it, or its path's. */
async function mediaTypeOf(id: string, hash: string): Promise<string | null> {
  const rows = await rowsOf(
    database.db,
    sql<{
      content_type: string | null;
    }>`SELECT COALESCE(h.media_type, a.content_type) AS content_type FROM session_assets a
      JOIN session_hashes h ON h.session_id = a.session_id AND h.hash = a.hash
      WHERE a.session_id = ${id} AND a.hash = ${hash}`,
  );
  return rows[0]!.content_type;
}

/** A POST of `body` to the bucket endpoint with the session's token. */
function post(
  body: RequestInit["body"],
  headers: Record<string, string> = {},
  path = UPLOAD,
): RequestInit & { path: string } {
  return {
    path,
    method: "POST",
    body,
    headers: {
      authorization: `Bearer ${jwt}`,
      "content-type": "multipart/form-data; boundary=b",
      ...headers,
    },
  };
}

async function send(
  hono: ReturnType<typeof app>,
  request: RequestInit & { path: string },
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await hono.request(request.path, request);
  const text = await response.text();
  return {
    status: response.status,
    body: text === "" ? undefined : JSON.parse(text),
    headers: response.headers,
  };
}

describe("createUploadApp", () => {
  it("createUploadApp: without metrics, a whole bucket read from the web body answers 201 with a completion token", async () => {
    const res = await send(app(), post(bucket([{ name: hash, bytes: CONTENT }])));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      errors: [],
      messages: [],
      result: { jwt: expect.any(String) },
    });
  });

  it("createUploadApp: with metrics, the bytes of an accepted bucket's body are counted", async () => {
    const metrics = new Metrics("upload");
    const body = bucket([{ name: hash, bytes: CONTENT }]);
    expect((await send(app({ metrics }), post(body))).status).toBe(201);
    expect((await metrics.uploadedBytes.get()).values[0]?.value).toBe(Buffer.byteLength(body));
  });

  it("createUploadApp: a POST without a body is refused 400 (10003) as a truncated bucket", async () => {
    const res = await send(app(), post(null));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ code: 10003, message: expect.stringMatching(/truncated/) }]);
  });

  it("createUploadApp: a body sent without Content-Length (chunked) is read whole", async () => {
    const bytes = Buffer.from(bucket([{ name: hash, bytes: CONTENT }]));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, 10));
        controller.enqueue(bytes.subarray(10));
        controller.close();
      },
    });
    const request = post(stream);
    const res = await send(app(), { ...request, duplex: "half" } as RequestInit & { path: string });
    expect(res.status).toBe(201);
  });

  it("createUploadApp: without ?base64=true, 400 (10003) saying only base64 uploads are supported", async () => {
    const res = await send(
      app(),
      post(bucket([{ name: hash, bytes: CONTENT }]), {}, UPLOAD.replace("?base64=true", "")),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      errors: [{ code: 10003, message: "only ?base64=true uploads are supported" }],
      messages: [],
      result: null,
    });
  });

  it("createUploadApp: an unknown path is 404 (10007) in Cloudflare's envelope", async () => {
    const res = await send(app(), { ...post(null), method: "GET", path: "/nothing/here" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      errors: [{ code: 10007, message: "not found" }],
      messages: [],
      result: null,
    });
  });

  it("createUploadApp: an error of its own answers 500 (10000) 'internal error' and is logged as 'upload failed' with its method and path", async () => {
    const hono = app();
    // SQLite closed under the service: a failure no client caused, and not a database outage.
    await database.close();
    const res = await send(hono, post(bucket([{ name: hash, bytes: CONTENT }])));
    expect(res.status).toBe(500);
    expect(res.body.errors).toEqual([{ code: 10000, message: "internal error" }]);
    const failed = lines.filter((line) => line.level >= 40);
    expect(failed).toEqual([
      expect.objectContaining({
        level: 50,
        msg: "upload failed",
        method: "POST",
        path: UPLOAD.split("?")[0],
        err: expect.objectContaining({ message: expect.any(String) }),
      }),
    ]);
  });

  it("createUploadApp: a refusal is answered in the envelope and logged as no error", async () => {
    const res = await send(app(), post(bucket([{ name: hash, bytes: Buffer.from("other bytes") }])));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe(10004);
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it("createUploadApp: a missing token is 401 (10001) with the default message", async () => {
    const request = post(bucket([{ name: hash, bytes: CONTENT }]));
    delete (request.headers as Record<string, string>)["authorization"];
    const res = await send(app(), request);
    expect(res.status).toBe(401);
    expect(res.body.errors).toEqual([
      { code: 10001, message: "upload token is missing, invalid or expired" },
    ]);
  });
});

describe("UploadService through the app", () => {
  it("upload: a declared Content-Length that would leave less than MIN_FREE_BYTES free is refused 507 (10009) before the body is read", async () => {
    const hono = app({ limits: { minFreeBytes: 1, freeBytes: freeBytesOf(dir) } });
    const body = bucket([{ name: hash, bytes: CONTENT }]);
    const huge = String(Number.MAX_SAFE_INTEGER);
    const refused = await send(hono, post(body, { "content-length": huge }));
    expect(refused.status).toBe(507);
    expect(refused.body.errors[0].code).toBe(10009);
    // The same bucket declaring its true length fits.
    const taken = await send(hono, post(body, { "content-length": String(Buffer.byteLength(body)) }));
    expect(taken.status).toBe(201);
  });

  it("upload: a bucket over maxRequestBytes is refused 413 (10006) naming the limit, and nothing is recorded", async () => {
    const body = bucket([{ name: hash, bytes: CONTENT }]);
    const size = Buffer.byteLength(body);
    const refused = await send(app({ service: { maxRequestBytes: size - 1 } }), post(body));
    expect(refused.status).toBe(413);
    expect(refused.body.errors).toEqual([{ code: 10006, message: `bucket exceeds ${size - 1} bytes` }]);
    // Exactly at the limit is taken: the refusal changed nothing, the asset was still missing.
    const taken = await send(app({ service: { maxRequestBytes: size } }), post(body));
    expect(taken.status).toBe(201);
  });

  it("upload: a wrong account is 404 (10002) 'account not found'", async () => {
    const res = await send(
      app(),
      post(bucket([{ name: hash, bytes: CONTENT }]), {}, UPLOAD.replace(ACCOUNT, "f".repeat(32))),
    );
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual([{ code: 10002, message: "account not found" }]);
  });

  it("upload: a body that is not multipart is 415 (10003) saying what Content-Type it must have", async () => {
    const res = await send(app(), post("{}", { "content-type": "application/json" }));
    expect(res.status).toBe(415);
    expect(res.body.errors).toEqual([{ code: 10003, message: "Content-Type must be multipart/form-data" }]);
  });
});

describe("BucketReceiver through the app", () => {
  const refusal = async (parts: Parameters<typeof bucket>[0]) => {
    const res = await send(app(), post(bucket(parts)));
    return { status: res.status, errors: res.body.errors };
  };

  it("upload: a part whose name is not an asset hash is refused 400 (10003), quoting at most 80 characters of it", async () => {
    const long = "x".repeat(100);
    expect(await refusal([{ name: long, bytes: CONTENT }])).toEqual({
      status: 400,
      errors: [{ code: 10003, message: `part name "${"x".repeat(80)}" is not an asset hash` }],
    });
    expect(await refusal([{ name: "", bytes: CONTENT, disposition: "form-data" }])).toEqual({
      status: 400,
      errors: [{ code: 10003, message: 'part name "" is not an asset hash' }],
    });
    expect(await packSizes()).toEqual([]);
  });

  it("upload: a part named by its name alone, or by its filename alone, is taken", async () => {
    const two = await openSession("session-2", {
      "/a.txt": Buffer.from("name alone"),
      "/b.txt": Buffer.from("filename alone"),
    });
    const [byName, byFilename] = two.hashes as [string, string];
    const body = bucket([
      { name: byName, bytes: Buffer.from("name alone"), disposition: `form-data; name="${byName}"` },
      {
        name: byFilename,
        bytes: Buffer.from("filename alone"),
        disposition: `form-data; filename="${byFilename}"`,
      },
    ]);
    const res = await send(app(), post(body, { authorization: `Bearer ${two.token}` }));
    expect(res.status).toBe(201);
  });

  it("upload: a part with a malformed Content-Type is refused 400 (10003) naming the part; nothing is stored", async () => {
    expect(await refusal([{ name: hash, bytes: CONTENT, type: "text html" }])).toEqual({
      status: 400,
      errors: [{ code: 10003, message: `part ${hash} has an invalid Content-Type` }],
    });
    expect(await packSizes()).toEqual([]);
  });

  it("upload: a hash sent twice in one bucket is refused 400 (10012) naming it, and nothing is recorded", async () => {
    const body = bucket([
      { name: hash, bytes: CONTENT },
      { name: hash, bytes: CONTENT, type: "text/x-later" },
    ]);
    const refused = await send(app(), post(body));
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      {
        code: 10012,
        message: `part ${hash} appears more than once in this bucket; a bucket names each asset once`,
      },
    ]);
    expect(await packSizes()).toEqual([]);
    expect(await mediaTypeOf("session-1", hash)).toBe("text/html; charset=utf-8");
  });

  it("upload: a bucket of more parts than maxFiles is refused 413 (10013) naming the limit, and nothing is recorded", async () => {
    const files = { "/one.txt": Buffer.from("one"), "/two.txt": Buffer.from("two") };
    const two = await openSession("session-2", files);
    const [first, second] = two.hashes as [string, string];
    const body = bucket([
      { name: first, bytes: files["/one.txt"] },
      { name: second, bytes: files["/two.txt"] },
    ]);
    const auth = { authorization: `Bearer ${two.token}` };
    const refused = await send(app({ service: { maxFiles: 1 } }), post(body, auth));
    expect(refused.status).toBe(413);
    expect(refused.body.errors).toEqual([
      { code: 10013, message: "bucket holds more than 1 parts (BUCKET_MAX_FILES)" },
    ]);
    expect(await packSizes()).toEqual([]);
    expect((await send(app({ service: { maxFiles: 2 } }), post(body, auth))).status).toBe(201);
  });

  it("upload: a part sent again in a later bucket without Content-Type keeps the type its first part declared", async () => {
    const first = bucket([{ name: hash, bytes: CONTENT, type: "text/x-first" }]);
    expect((await send(app(), post(first))).status).toBe(201);
    expect((await send(app(), post(bucket([{ name: hash, bytes: CONTENT }])))).status).toBe(201);
    expect(await mediaTypeOf("session-1", hash)).toBe("text/x-first");
  });

  it("upload: content the session has already is not stored again, and its part's Content-Type applies", async () => {
    expect((await send(app(), post(bucket([{ name: hash, bytes: CONTENT }])))).status).toBe(201);
    const again = bucket([{ name: hash, bytes: CONTENT, type: "text/x-again" }]);
    expect((await send(app(), post(again))).status).toBe(201);
    expect(await packSizes()).toEqual([CONTENT.length]);
    expect(await mediaTypeOf("session-1", hash)).toBe("text/x-again");
  });

  it("upload: a bucket that leaves one asset missing answers 202, the one that brings it 201", async () => {
    const files = { "/one.txt": Buffer.from("one"), "/two.txt": Buffer.from("two") };
    const two = await openSession("session-2", files);
    const [first, second] = two.hashes as [string, string];
    const auth = { authorization: `Bearer ${two.token}` };
    const part = await send(app(), post(bucket([{ name: first, bytes: files["/one.txt"] }]), auth));
    expect(part.status).toBe(202);
    expect(part.body).toEqual({ success: true, errors: [], messages: [], result: {} });
    const rest = await send(app(), post(bucket([{ name: second, bytes: files["/two.txt"] }]), auth));
    expect(rest.status).toBe(201);
  });
});
