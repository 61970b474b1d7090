import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashAsset } from "../core/asset-hash.js";
import { base64Chunks, base64Length } from "./file-stream.js";
import { hashFile } from "./hash-file.js";
import { HashCache } from "./hash-cache.js";
import { hashSite } from "./hash.js";
import { walkSite } from "./walk.js";

let dir: string;
const sizes = [0, 1, 2, 3, 4, 65_535, 196_608, 196_609, 1_000_003];
const bytesOf = (size: number) =>
  Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + (i >> 8)) & 0xff));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "hash-"));
  for (const size of sizes) await writeFile(join(dir, `f${size}.bin`), bytesOf(size));
  await writeFile(join(dir, "same-a.txt"), "same");
  await writeFile(join(dir, "same-b.txt"), "same");
  await writeFile(join(dir, "same-c.css"), "same");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("hashing", () => {
  it("base64Chunks: any chunking joins to the base64 of the whole", async () => {
    const whole = bytesOf(1000);
    for (const step of [1, 2, 5, 7, 64, 999]) {
      async function* pieces() {
        for (let i = 0; i < whole.length; i += step) yield whole.subarray(i, i + step);
      }
      let joined = "";
      for await (const text of base64Chunks(pieces())) joined += text;
      expect(joined).toBe(whole.toString("base64"));
    }
    expect(base64Length(1000)).toBe(whole.toString("base64").length);
  });

  it("hashFile: streaming hash equals hashAsset of the whole buffer, across chunk borders", async () => {
    for (const size of sizes) {
      const path = `f${size}.bin`;
      const expected = await hashAsset(bytesOf(size), `/site/${path}`);
      expect(await hashFile({ absPath: join(dir, path), path, size })).toBe(expected);
    }
  });

  it("hashFile: a file whose size changed since the walk is named in the error", async () => {
    await expect(hashFile({ absPath: join(dir, "f4.bin"), path: "f4.bin", size: 5 })).rejects.toThrow(
      /f4.bin changed while deploying/,
    );
  });

  it("hashSite: same contents and extension give the same hash; the extension counts", async () => {
    const files = (await walkSite(dir)).filter((file) => file.path.startsWith("same-"));
    const hashes = await hashSite(files, { cache: HashCache.empty(), threads: 0 });
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[2]).not.toBe(hashes[0]);
    expect(hashes[0]).toBe(await hashAsset(Buffer.from("same"), "a.txt"));
  });

  const workerUrl = new URL("../../dist/client/hash-worker.js", import.meta.url);
  it.skipIf(!existsSync(workerUrl))(
    "hashSite: worker threads give the same hashes as the main thread",
    async () => {
      const files = await walkSite(dir);
      const onMain = await hashSite(files, { cache: HashCache.empty(), threads: 0 });
      const inWorkers = await hashSite(files, { cache: HashCache.empty(), threads: 2, workerUrl });
      expect(inWorkers).toEqual(onMain);
      expect(inWorkers.every((hash) => /^[0-9a-f]{32}$/.test(hash))).toBe(true);
    },
  );
});
