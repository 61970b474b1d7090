import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { hashAsset } from "../core/asset-hash.js";
import { HashLane } from "./hash-lane.js";
import { PartContentError } from "./part-content-error.js";
import { PartHashPool } from "./part-hash-pool.js";
import { expectAsReference } from "./test-base64-texts.js";

const pool = new PartHashPool(1);
afterAll(() => pool.close());

/** Feeds `chunks` of base64 text to a new lane; its hash, the bytes its target received and its size. */
async function feed(chunks: string[], maxBytes = 1024) {
  const appended: Buffer[] = [];
  const lane = new HashLane(
    pool.lane(),
    { append: async (bytes) => void appended.push(Buffer.from(bytes)) },
    maxBytes,
  );
  try {
    for (const chunk of chunks) await lane.write(Buffer.from(chunk, "latin1"));
    return { hash: await lane.finish("txt"), received: Buffer.concat(appended), size: lane.size };
  } catch (error) {
    await lane.abandon();
    throw error;
  }
}

describe("HashLane", () => {
  it("HashLane: a part of many chunks, several batches long, is hashed on the thread as hashAsset hashes it", async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    const text = bytes.toString("base64");
    const chunks = Array.from({ length: Math.ceil(text.length / 65_000) }, (_, i) =>
      text.slice(i * 65_000, (i + 1) * 65_000),
    );
    const before = pool.partsHashed;
    const { hash, received, size } = await feed(chunks, bytes.length);
    expect(hash).toBe(await hashAsset(bytes, "/a.txt"));
    // Compared whole: a diff of megabytes would take the test's time.
    expect(received.equals(bytes)).toBe(true);
    expect(size).toBe(bytes.length);
    expect(pool.partsHashed).toBe(before + 1);
  });

  it("HashLane: takes, refuses and hashes any text as Base64PartSink does (decoding and encoding it again)", async () => {
    const refused = await expectAsReference(29, 600, (chunks) => feed(chunks, 64).then(({ hash }) => hash));
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(500);
  });

  it("lane: bytes are taken when handed over; the caller's buffer, reused after, changes nothing", async () => {
    // The decoder hands over views of one scratch buffer that it overwrites with the next chunk.
    const scratch = Buffer.alloc(100 * 1024);
    const pieces = [randomBytes(40 * 1024), randomBytes(100 * 1024), randomBytes(5)];
    const lane = pool.lane();
    for (const piece of pieces) {
      piece.copy(scratch);
      await lane.hash(scratch.subarray(0, piece.length));
      scratch.fill(0);
    }
    expect(await lane.finish("txt")).toBe(await hashAsset(Buffer.concat(pieces), "/a.txt"));
  });

  it("HashLane: content over maxBytes is refused before it reaches the target", async () => {
    await expect(feed([Buffer.alloc(7, 1).toString("base64")], 6)).rejects.toThrow(
      new PartContentError("content exceeds 6 bytes"),
    );
  });
});
