import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidManifestError } from "../../src/core/errors.js";
import type { ManifestEntry } from "../../src/core/manifest.js";
import { CF, cloudflareFixture } from "../support/cloudflare-api/cloudflare-fixture.js";

const SLUG = "amber-otter-a1b2c";
const HASH = "0123456789abcdef0123456789abcdef";
const MiB = 1024 * 1024;

/** `count` files named by their index, all of one content. */
const files = (count: number, size = 1): ManifestEntry[] =>
  Array.from({ length: count }, (_, i) => ({ path: `/${i}.txt`, hash: HASH, size }));

/** Cloudflare's limits on one Worker version's assets are checked before Cloudflare is asked. */
describe("Cloudflare platform: asset limits", () => {
  let f: Awaited<ReturnType<typeof cloudflareFixture>>;
  beforeEach(async () => {
    f = await cloudflareFixture();
  });
  afterEach(async () => {
    await f.api.close();
  });

  const open = (entries: ManifestEntry[]) =>
    f.platform.openUploadSession({
      projectSlug: SLUG,
      entries,
      expiresAt: new Date(f.clock.now + 3_600_000),
    });
  /** What the stand-in holds of upload sessions: Cloudflare's, and the platform's records in KV. */
  const sessions = () => [f.api.state.sessions.size, [...f.api.state.kvNamespace(CF.kvNamespaceId).keys()]];

  it("openUploadSession: 100,000 files are accepted; one more is INVALID_MANIFEST naming both numbers, and nothing is opened", async () => {
    const error = await open(files(100_001)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidManifestError);
    expect((error as Error).message).toBe(
      "manifest has 100001 assets; Cloudflare's limit is 100000 files per Worker version",
    );
    expect(sessions()).toEqual([0, []]);
    await open(files(100_000));
    expect(f.api.state.sessions.size).toBe(1);
  });

  it("openUploadSession: a file of 25 MiB is accepted; one byte more is INVALID_MANIFEST naming the file, and nothing is opened", async () => {
    const entries = [...files(2), { path: "/big.bin", hash: HASH, size: 25 * MiB + 1 }];
    const error = await open(entries).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidManifestError);
    expect((error as Error).message).toBe(
      `/big.bin is ${25 * MiB + 1} bytes; Cloudflare's limit is ${25 * MiB} bytes (25 MiB) per file`,
    );
    expect(sessions()).toEqual([0, []]);
    await open([...files(2), { path: "/big.bin", hash: HASH, size: 25 * MiB }]);
    expect(f.api.state.sessions.size).toBe(1);
  });
});
