import { afterEach, describe, expect, it, vi } from "vitest";
import type { ManifestLimits } from "../../core/manifest.js";
import { PrepareBodyPool } from "./prepare-body-pool.js";

const LIMITS: ManifestLimits = { maxAssets: 200_000, maxAssetBytes: 1e9, maxManifestBytes: 1e8 };

/** A prepare body of `count` entries, as the client sends it. */
function body(count: number): ArrayBuffer {
  const manifest: Record<string, { hash: string; size: number }> = {};
  for (let i = 0; i < count; i++) {
    manifest[`/site/assets/${Math.floor(i / 100)}/chunk-${i}.js`] = {
      hash: i.toString(16).padStart(32, "0"),
      size: 100 + i,
    };
  }
  return new TextEncoder().encode(JSON.stringify({ manifest })).buffer as ArrayBuffer;
}

function entriesOf(answer: Awaited<ReturnType<PrepareBodyPool["parse"]>>): number {
  if (!("manifest" in answer) || !("count" in answer.manifest)) throw new Error("no manifest");
  return answer.manifest.count;
}

describe("PrepareBodyPool", () => {
  afterEach(() => void vi.useRealTimers());

  it("parse: ends its worker after idleMs with nothing to parse, not before", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pool = new PrepareBodyPool({ idleMs: 1_000 });
    expect(entriesOf(await pool.parse({ bytes: body(10), slug: "site", limits: LIMITS }))).toBe(10);
    const first = pool.threadId;
    expect(first).toBeDefined();
    vi.advanceTimersByTime(999);
    expect(pool.threadId).toBe(first);
    vi.advanceTimersByTime(1);
    expect(pool.threadId).toBeUndefined();
    expect(entriesOf(await pool.parse({ bytes: body(20), slug: "site", limits: LIMITS }))).toBe(20);
    expect(pool.threadId).not.toBe(first);
  });

  it("parse: a body within the idle time keeps the worker and restarts the wait", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pool = new PrepareBodyPool({ idleMs: 1_000 });
    await pool.parse({ bytes: body(10), slug: "site", limits: LIMITS });
    const first = pool.threadId;
    vi.advanceTimersByTime(999);
    const answers = await Promise.all(
      [1, 2, 3].map((n) => pool.parse({ bytes: body(n), slug: "site", limits: LIMITS })),
    );
    expect(answers.map(entriesOf)).toEqual([1, 2, 3]);
    vi.advanceTimersByTime(999);
    expect(pool.threadId).toBe(first);
    vi.advanceTimersByTime(1);
    expect(pool.threadId).toBeUndefined();
  });

  it("parse: a 100,000-entry body fits the worker's small young generation", async () => {
    const pool = new PrepareBodyPool({ idleMs: 0, youngGenerationMb: 4 });
    expect(entriesOf(await pool.parse({ bytes: body(100_000), slug: "site", limits: LIMITS }))).toBe(100_000);
  });
});
