import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { hashAsset } from "../core/asset-hash.js";
import { HashLane } from "./hash-lane.js";
import { PartContentError } from "./part-content-error.js";
import { PartHashPool } from "./part-hash-pool.js";

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
    let seed = 29;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const odd = ["-", "_", "=", " ", "*", "\n", "\u00e9", "A", "/", "+"];
    let refused = 0;
    for (let round = 0; round < 600; round++) {
      const bytes = Buffer.from(Array.from({ length: random(12) }, () => random(256)));
      const chars = bytes.toString("base64").split("");
      for (let change = random(3); change > 0 && chars.length > 0; change--) {
        chars[random(chars.length)] = odd[random(odd.length)]!;
      }
      const text = chars.join("");
      const cut = random(text.length + 1);
      const got = await feed([text.slice(0, cut), text.slice(cut)], 64).then(
        ({ hash }) => hash,
        (error: unknown) => (error instanceof PartContentError ? "refused" : error),
      );
      expect(got, JSON.stringify(text)).toBe(await reference(text));
      if (got === "refused") refused++;
    }
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(500);
  });

  it("HashLane: content over maxBytes is refused before it reaches the target", async () => {
    await expect(feed([Buffer.alloc(7, 1).toString("base64")], 6)).rejects.toThrow(
      new PartContentError("content exceeds 6 bytes"),
    );
  });
});

/** The slow way (as in base64-part.test.ts): what must be refused, else the canonical hash. */
async function reference(text: string): Promise<string> {
  if (/[^A-Za-z0-9+/=]/.test(text) || text.length % 4 !== 0) return "refused";
  const pad = text.indexOf("=");
  if (pad !== -1 && (pad < text.length - 2 || !/^=+$/.test(text.slice(pad)))) return "refused";
  return hashAsset(Buffer.from(text, "base64"), "/a.txt");
}
