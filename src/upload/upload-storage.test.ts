import { beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../core/asset-hash.js";
import { UploadTokens } from "../platform/selfhost/sessions/upload-tokens.js";
import { MemoryUploadStorage } from "../../test/support/memory-upload-storage.js";
import { multipartBody, type UploadPart } from "../../test/support/multipart.js";
import { UploadErrorCode } from "./upload-errors.js";
import { UploadService } from "./upload-service.js";

// The upload service on a storage in maps: what it keeps and refuses, with no database or disk.
const ACCOUNT = "a".repeat(32);
const NOW = 1_800_000_000_000;
const PAGE = Buffer.from("<p>page</p>");
const STYLE = Buffer.from("p { color: teal }");

let storage: MemoryUploadStorage;
let tokens: UploadTokens;
let service: UploadService;
let hashes: { page: string; style: string };

beforeEach(async () => {
  storage = new MemoryUploadStorage();
  tokens = new UploadTokens("secret", () => NOW);
  service = new UploadService({
    accountId: ACCOUNT,
    storage,
    tokens,
    maxAssetBytes: 1024,
    maxFiles: 10,
    maxRequestBytes: 64 * 1024,
    now: () => NOW,
  });
  hashes = { page: await hashAsset(PAGE, "/index.html"), style: await hashAsset(STYLE, "/style.css") };
  storage.openSession("s1", NOW + 60_000, [
    { path: "/index.html", hash: hashes.page, size: PAGE.length },
    { path: "/style.css", hash: hashes.style, size: STYLE.length },
  ]);
});

/** Sends one bucket of `parts` for session s1; the body is read only if the service asks for it. */
async function send(parts: UploadPart[], contentLength?: number) {
  const token = await tokens.sign(["upload"], "s1", ACCOUNT, new Date(NOW + 60_000));
  const { body, contentType } = multipartBody(parts);
  let read = false;
  const chunks = (async function* () {
    read = true;
    yield body;
  })();
  const result = service.receiveBucket({
    accountId: ACCOUNT,
    token,
    contentType,
    contentLength,
    body: chunks,
  });
  return { result, read: () => read };
}

describe("UploadService on a storage handed to it", () => {
  it("receiveBucket: one of two missing assets is kept under its hash and answers 202; the other then 201 with the completion token", async () => {
    expect(await (await send([{ hash: hashes.page, bytes: PAGE }])).result).toEqual({ status: 202 });
    expect(storage.blobs.get(hashes.page)).toEqual(PAGE);
    const done = await (await send([{ hash: hashes.style, bytes: STYLE, contentType: "text/css" }])).result;
    expect(done.status).toBe(201);
    const jwt = done.status === 201 ? done.jwt : "";
    expect(await tokens.verify("completion", jwt, new Date(NOW))).toBe("s1");
    expect(storage.blobs.get(hashes.style)).toEqual(STYLE);
    expect(storage.sessions.get("s1")!.mediaTypes.get(hashes.style)).toBe("text/css");
  });

  it("receiveBucket: a part whose bytes do not match its hash refuses the bucket 400 (10004), its pack discarded and nothing recorded", async () => {
    const { result } = await send([
      { hash: hashes.page, bytes: PAGE },
      { hash: hashes.style, bytes: Buffer.from("other bytes") },
    ]);
    await expect(result).rejects.toMatchObject({ status: 400, code: UploadErrorCode.hashMismatch });
    expect(storage.packs.map((pack) => pack.discarded)).toEqual([true]);
    expect(storage.blobs.size).toBe(0);
    expect(await storage.missingCount("s1")).toBe(2);
  });

  it("receiveBucket: content the storage holds already is verified, credited to the session and not stored again", async () => {
    storage.blobs.set(hashes.page, PAGE);
    const { result } = await send([{ hash: hashes.page, bytes: PAGE }]);
    expect(await result).toEqual({ status: 202 });
    expect(storage.packs.map((pack) => pack.length)).toEqual([]);
    expect(await storage.missingCount("s1")).toBe(1);
  });

  it("receiveBucket: a declared length that would leave less free space than is kept is refused 507 (10009) before the body is read", async () => {
    storage.minFreeBytes = 1000;
    storage.freeBytes = 1500;
    const refused = await send([{ hash: hashes.page, bytes: PAGE }], 600);
    await expect(refused.result).rejects.toMatchObject({
      status: 507,
      code: UploadErrorCode.insufficientStorage,
    });
    expect(refused.read()).toBe(false);
    expect(await (await send([{ hash: hashes.page, bytes: PAGE }], 400)).result).toEqual({ status: 202 });
  });
});
