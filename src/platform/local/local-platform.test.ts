import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { InsufficientStorageError, QuotaExceededError } from "../../core/errors.js";
import { UNLIMITED, type StorageLimits } from "./storage-limits.js";
import {
  ACCOUNT,
  deployed,
  manifestOf,
  rowsOfTable,
  testPlatform,
  type TestPlatform,
  UPLOAD_URL,
} from "./test-platform.js";

let t: TestPlatform;
afterEach(() => t.remove());

const limits = (changes: Partial<StorageLimits>): StorageLimits => ({ ...UNLIMITED, ...changes });
const expiresAt = () => new Date(t.clock.ms + 60_000);
const open = (entries: ReturnType<typeof manifestOf>, clientAddress?: string) =>
  t.platform.openUploadSession({ projectSlug: "blue", entries, expiresAt: expiresAt(), clientAddress });
const sessionRows = async () =>
  (await rowsOfTable(t, "upload_sessions")).map((row) => [row["client_address"], row["pending_bytes"]]);

describe("LocalPlatform.openUploadSession", () => {
  it("openUploadSession: the session's id, account, upload URL and expiry, its missing content in buckets, an upload token only, and the bytes reserved for its address", async () => {
    t = await testPlatform();
    const entries = manifestOf({ a: "1", b: "22", c: "333", d: "1" });
    const at = expiresAt();
    const session = await t.platform.openUploadSession({
      projectSlug: "blue",
      entries,
      expiresAt: at,
      clientAddress: "10.0.0.1",
    });
    expect(session).toMatchObject({ accountId: ACCOUNT, uploadUrl: UPLOAD_URL, expiresAt: at });
    expect(session.buckets.flat().sort()).toEqual(
      entries
        .slice(0, 3)
        .map((e) => e.hash)
        .sort(),
    );
    expect(session.buckets.map((bucket) => bucket.length)).toEqual([2, 1]);
    expect(await t.tokens.verify("upload", session.uploadJwt, new Date(t.clock.ms))).toBe(session.sessionId);
    expect(await t.tokens.verify("completion", session.uploadJwt, new Date(t.clock.ms))).toBeUndefined();
    expect(await rowsOfTable(t, "upload_sessions")).toEqual([
      expect.objectContaining({
        id: session.sessionId,
        project_slug: "blue",
        expires_at: at.getTime(),
        client_address: "10.0.0.1",
        pending_bytes: 6,
      }),
    ]);
  });

  it("openUploadSession: with nothing to upload, no bucket and no bytes reserved, and the upload token completes the deploy too", async () => {
    t = await testPlatform();
    await deployed(t, "blue", "r1", { a: "1" });
    const session = await open(manifestOf({ again: "1" }), "10.0.0.1");
    expect(session.buckets).toEqual([]);
    expect(await t.tokens.verify("completion", session.uploadJwt, new Date(t.clock.ms))).toBe(
      session.sessionId,
    );
    expect(await sessionRows()).toContainEqual(["10.0.0.1", 0]);
  });

  it("openUploadSession: SQLITE_FULL while writing the manifest is InsufficientStorageError; another failure is thrown as it is", async () => {
    t = await testPlatform();
    const pages = t.database.sqlite!.pragma("page_count", { simple: true }) as number;
    t.database.sqlite!.pragma(`max_page_count = ${pages + 2}`);
    const many = Array.from({ length: 3000 }, (_, i) => ({
      path: `/${i}`,
      hash: `${i}`.padStart(32, "0"),
      size: 1,
    }));
    const full = await open(many).catch((error: unknown) => error);
    expect(full).toBeInstanceOf(InsufficientStorageError);
    expect((full as Error).cause).toMatchObject({ code: "SQLITE_FULL" });
    t.database.sqlite!.pragma(`max_page_count = ${pages * 100}`);
    const broken = [{ path: "/a", hash: "0".repeat(32), size: null as unknown as number }];
    await expect(open(broken)).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_NOTNULL" });
  });
});

describe("LocalPlatform quotas", () => {
  it("openUploadSession: a manifest whose distinct content alone is over PROJECT_QUOTA_BYTES is refused before a row is written; at the quota it opens", async () => {
    t = await testPlatform(limits({ projectQuotaBytes: 10 }));
    await deployed(t, "blue", "r1", { kept: "1234" });
    const over = manifestOf({ a: "123456", b: "12345", c: "123456" });
    const error = (await open(over).catch((e: unknown) => e)) as QuotaExceededError;
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ quota: "project", limitBytes: 10, remainingBytes: 6 });
    expect(error.message).toBe(
      "project quota exceeded: this deploy would keep 11 bytes (0.0 MiB) across the project's revisions; " +
        "the limit (PROJECT_QUOTA_BYTES) is 10 bytes (0.0 MiB), 6 bytes (0.0 MiB) left",
    );
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(1);
    await open(manifestOf({ a: "1234", b: "123456" }));
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(2);
  });

  it("openUploadSession: content that would take the project's kept bytes past PROJECT_QUOTA_BYTES is refused and its session removed; up to the quota it opens", async () => {
    t = await testPlatform(limits({ projectQuotaBytes: 10 }));
    await deployed(t, "blue", "r1", { kept: "1234" });
    const error = await open(manifestOf({ a: "1234567" })).catch((e: unknown) => e);
    expect(error).toMatchObject({ quota: "project", limitBytes: 10, remainingBytes: 6 });
    expect((error as Error).message).toMatch(/^project quota exceeded: this deploy would keep 11 bytes/);
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(1);
    await open(manifestOf({ kept: "1234", a: "123456" }));
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(2);
  });

  it("openUploadSession: a manifest that adds nothing to the project opens though the project is over PROJECT_QUOTA_BYTES already (the quota lowered since)", async () => {
    const storage = limits({});
    t = await testPlatform(storage);
    await deployed(t, "blue", "r1", { x: "123456", y: "abcdef" });
    storage.projectQuotaBytes = 10;
    await open(manifestOf({ again: "123456" }));
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(2);
  });

  it("openUploadSession: an address's prepared and undeployed bytes past PENDING_QUOTA_BYTES are refused, its session removed; up to the quota, with no address, or asking for nothing, it opens", async () => {
    t = await testPlatform(limits({ pendingQuotaBytes: 10 }));
    await open(manifestOf({ a: "1234567" }), "10.0.0.1");
    const error = (await open(manifestOf({ b: "1234" }), "10.0.0.1").catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ quota: "pending", limitBytes: 10, remainingBytes: 3 });
    expect(error.message).toBe(
      "pending quota exceeded: this prepare asks for 4 bytes (0.0 MiB) and this client address has 7 bytes (0.0 MiB) " +
        "prepared and not deployed; the limit (PENDING_QUOTA_BYTES) is 10 bytes (0.0 MiB), 3 bytes (0.0 MiB) left. " +
        "Deploy or wait for earlier preparations to expire.",
    );
    expect(await sessionRows()).toEqual([["10.0.0.1", 7]]);
    await open(manifestOf({ c: "123" }), "10.0.0.1");
    await open(manifestOf({ d: "12345678901" }));
    await open(manifestOf({ e: "12345678901" }), "10.0.0.2").catch(() => undefined);
    expect((await sessionRows()).sort()).toEqual([
      [null, 11],
      ["10.0.0.1", 3],
      ["10.0.0.1", 7],
    ]);
    await deployed(t, "blue", "r1", { k: "k" });
    await sql`UPDATE upload_sessions SET pending_bytes = 12`.execute(t.database.db);
    // Over the quota already, the address may still prepare what asks for nothing.
    await open(manifestOf({ again: "k" }), "10.0.0.1");
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(5);
    const nothingLeft = await open(manifestOf({ f: "1" }), "10.0.0.1").catch((e: unknown) => e);
    expect(nothingLeft).toMatchObject({ quota: "pending", remainingBytes: 0 });
  });

  it("openUploadSession: less than MIN_FREE_BYTES left after the upload, or a full disk met while asking, is InsufficientStorageError with the session removed; another failure is thrown as it is; with nothing to upload free space is not asked", async () => {
    let free: () => number = () => 105;
    let asked = 0;
    t = await testPlatform(limits({ minFreeBytes: 100, freeBytes: async () => (asked++, free()) }));
    await open(manifestOf({ a: "12345" }));
    expect(asked).toBe(1);
    const refused = await open(manifestOf({ b: "123456" })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InsufficientStorageError);
    free = () => {
      throw Object.assign(new Error("no space"), { code: "ENOSPC" });
    };
    const full = (await open(manifestOf({ c: "1" })).catch((e: unknown) => e)) as Error;
    expect(full).toBeInstanceOf(InsufficientStorageError);
    expect(full.cause).toMatchObject({ code: "ENOSPC" });
    free = () => {
      throw new Error("statfs broke");
    };
    await expect(open(manifestOf({ d: "1" }))).rejects.toThrow("statfs broke");
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(1);
    free = () => 1000;
    await deployed(t, "blue", "r1", { kept: "12345" });
    asked = 0;
    free = () => 0;
    await open(manifestOf({ same: "12345" }));
    expect(asked).toBe(0);
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(3);
  });
});
