import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { InsufficientStorageError, QuotaExceededError } from "../../core/errors.js";
import { REVISION_BYTES, rowCharge } from "./quotas/quota-charges.js";
import { UNLIMITED, type StorageLimits } from "./quotas/storage-limits.js";
import {
  ACCOUNT,
  deployed,
  manifestOf,
  rowsOfTable,
  testPlatform,
  type TestPlatform,
  UPLOAD_URL,
} from "../../../test/support/test-platform.js";

let t: TestPlatform;
afterEach(() => t.remove());

const limits = (changes: Partial<StorageLimits>): StorageLimits => ({ ...UNLIMITED, ...changes });
const expiresAt = () => new Date(t.clock.ms + 60_000);
const open = (entries: ReturnType<typeof manifestOf>, clientAddress?: string) =>
  t.platform.openUploadSession({ projectSlug: "blue", entries, expiresAt: expiresAt(), clientAddress });
/** The charge of a revision of `files` in a project that keeps nothing else. */
const charge = (files: Record<string, string>) =>
  REVISION_BYTES +
  manifestOf(files).reduce((sum, e) => sum + rowCharge(e.path), 0) +
  [...new Set(Object.values(files))].reduce((sum, text) => sum + Buffer.byteLength(text), 0);
const sessionRows = async () =>
  (await rowsOfTable(t, "upload_sessions")).map((row) => [row["client_address"], row["pending_bytes"]]);

describe("SelfHostedPlatform.openUploadSession", () => {
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
        // Its content to upload and its manifest's rows.
        pending_bytes: 6 + entries.reduce((sum, e) => sum + rowCharge(e.path), 0),
      }),
    ]);
  });

  it("openUploadSession: with nothing to upload, no bucket, only its rows reserved, and the upload token completes the deploy too", async () => {
    t = await testPlatform();
    await deployed(t, "blue", "r1", { a: "1" });
    const session = await open(manifestOf({ again: "1" }), "10.0.0.1");
    expect(session.buckets).toEqual([]);
    expect(await t.tokens.verify("completion", session.uploadJwt, new Date(t.clock.ms))).toBe(
      session.sessionId,
    );
    expect(await sessionRows()).toContainEqual(["10.0.0.1", rowCharge("/again")]);
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

describe("SelfHostedPlatform quotas", () => {
  it("openUploadSession: a manifest whose charge alone (content, rows, a revision) is over PROJECT_QUOTA_BYTES is refused before a row is written; at the quota it opens", async () => {
    const over = { a: "1".repeat(1000), b: "2".repeat(1000), c: "3".repeat(1000) };
    const quota = charge(over) - 1;
    t = await testPlatform(limits({ projectQuotaBytes: quota }));
    await deployed(t, "blue", "r1", { kept: "1234" });
    const kept = charge({ kept: "1234" });
    const error = (await open(manifestOf(over)).catch((e: unknown) => e)) as QuotaExceededError;
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ quota: "project", limitBytes: quota, remainingBytes: quota - kept });
    expect(error.message).toBe(
      `project quota exceeded: this deploy would keep ${quota + 1} bytes (0.0 MiB) across the project's ` +
        "revisions (content, its compressed variants, manifest rows and revisions); the limit " +
        `(PROJECT_QUOTA_BYTES) is ${quota} bytes (0.0 MiB), ${quota - kept} bytes (0.0 MiB) left`,
    );
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(1);
    const fits = { pad: "p".repeat(quota - kept - charge({ pad: "" })) };
    await open(manifestOf(fits));
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(2);
  });

  it("openUploadSession: a revision that would take the project's kept charge past PROJECT_QUOTA_BYTES is refused and its session removed; up to the quota it opens", async () => {
    const quota = 4000;
    t = await testPlatform(limits({ projectQuotaBytes: quota }));
    await deployed(t, "blue", "r1", { kept: "1234" });
    const kept = charge({ kept: "1234" });
    const room = quota - kept - charge({ a: "" });
    const error = await open(manifestOf({ a: "x".repeat(room + 1) })).catch((e: unknown) => e);
    expect(error).toMatchObject({ quota: "project", limitBytes: quota, remainingBytes: quota - kept });
    expect((error as Error).message).toMatch(
      `project quota exceeded: this deploy would keep ${quota + 1} bytes`,
    );
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(1);
    await open(manifestOf({ a: "x".repeat(room) }));
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(2);
  });

  it("openUploadSession: a manifest of content the project keeps adds its rows and a revision only: refused once those pass PROJECT_QUOTA_BYTES, opened up to it", async () => {
    const storage = limits({});
    t = await testPlatform(storage);
    await deployed(t, "blue", "r1", { x: "123456", y: "abcdef" });
    const kept = charge({ x: "123456", y: "abcdef" });
    storage.projectQuotaBytes = kept + REVISION_BYTES + rowCharge("/again") - 1;
    await expect(open(manifestOf({ again: "123456" }))).rejects.toMatchObject({ quota: "project" });
    storage.projectQuotaBytes += 1;
    await open(manifestOf({ again: "123456" }));
    expect(await rowsOfTable(t, "upload_sessions")).toHaveLength(2);
  });

  it("openUploadSession: an address's prepared and undeployed bytes (content to upload and manifest rows) past PENDING_QUOTA_BYTES are refused, its session removed; up to the quota, with no address, or an empty manifest, it opens", async () => {
    const first = 7 + rowCharge("/a");
    const second = 4 + rowCharge("/b");
    const quota = first + second - 1;
    t = await testPlatform(limits({ pendingQuotaBytes: quota }));
    await open(manifestOf({ a: "1234567" }), "10.0.0.1");
    const error = (await open(manifestOf({ b: "1234" }), "10.0.0.1").catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ quota: "pending", limitBytes: quota, remainingBytes: quota - first });
    expect(error.message).toBe(
      `pending quota exceeded: this prepare asks for ${second} bytes (0.0 MiB) (content to upload and ` +
        `manifest rows) and this client address has ${first} bytes (0.0 MiB) prepared and not deployed; ` +
        `the limit (PENDING_QUOTA_BYTES) is ${quota} bytes (0.0 MiB), ${quota - first} bytes (0.0 MiB) left. ` +
        "Deploy or wait for earlier preparations to expire.",
    );
    expect(await sessionRows()).toEqual([["10.0.0.1", first]]);
    await open(manifestOf({ c: "123" }), "10.0.0.1");
    await open(manifestOf({ d: "12345678901" }));
    await open(manifestOf({ e: "e".repeat(quota) }), "10.0.0.2").catch(() => undefined);
    expect((await sessionRows()).sort()).toEqual([
      [null, 11 + rowCharge("/d")],
      ["10.0.0.1", 3 + rowCharge("/c")],
      ["10.0.0.1", first],
    ]);
    await deployed(t, "blue", "r1", { k: "k" });
    await sql`UPDATE upload_sessions SET pending_bytes = ${quota + 1}`.execute(t.database.db);
    // Over the quota already, the address may still prepare what asks for nothing.
    await open([], "10.0.0.1");
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
