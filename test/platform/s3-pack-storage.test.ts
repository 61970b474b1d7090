import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ObjectStoreUnavailableError } from "../../src/core/errors.js";
import { DiskRangeCache } from "../../src/platform/selfhost/content/disk-range-cache.js";
import { createS3Client } from "../../src/platform/selfhost/content/s3/s3-client.js";
import type { S3Settings } from "../../src/platform/selfhost/content/s3/s3-settings.js";
import { PackDamagedError, PackMissingError } from "../../src/platform/selfhost/content/pack-storage.js";
import { PackWriter } from "../../src/platform/selfhost/content/pack-writer.js";
import { readWindow, S3PackStorage } from "../../src/platform/selfhost/content/s3/s3-pack-storage.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { tempDir } from "../support/server.js";

const ABSENT = "0123456789abcdef01234567";

describe("S3PackStorage", () => {
  let store: TestObjectStore;
  let dir: ReturnType<typeof tempDir>;
  let settings: S3Settings;
  let client: S3Client;
  let storage: S3PackStorage;
  /** The commands sent through the storage's client, by name. */
  let sent: string[];
  let writers = 0;

  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => store.close());
  beforeEach(() => {
    dir = tempDir("s3-pack-storage-");
    settings = store.settings();
    client = createS3Client(settings);
    sent = [];
    const send = client.send.bind(client);
    client.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      sent.push(command.constructor.name.replace(/Command$/, ""));
      return (send as (...all: unknown[]) => unknown)(command, ...rest);
    }) as typeof client.send;
    storage = new S3PackStorage({
      client,
      location: settings.location,
      cache: new DiskRangeCache(join(dir.path, "cache"), 1024 * 1024),
      timeoutMs: settings.timeoutMs,
    });
  });
  afterEach(async () => {
    await storage.close();
    dir.cleanup();
  });

  const commit = async (content: string) => {
    const writer = new PackWriter(join(dir.path, `writer-${++writers}.tmp`));
    await writer.append(Buffer.from(content));
    return { ...(await storage.commit(writer)), temporary: writer.temporaryPath };
  };
  const objectOf = async (id: string) => {
    const reply = await client.send(
      new GetObjectCommand({
        Bucket: settings.location.bucket,
        Key: `${settings.location.prefix}packs/${id}.pack`,
      }),
    );
    return reply.Body!.transformToString();
  };
  const cached = () => readdirSync(join(dir.path, "cache")).sort();
  const readRange = async (id: string, start: number, length: number, packSize: number | undefined) => {
    const range = await storage.openRange(id, start, length, packSize);
    try {
      return (await range.readAll()).toString();
    } finally {
      range.close();
    }
  };

  it("commit: the writer's bytes become the object <prefix>packs/<id>.pack, its temporary file removed; id and size returned", async () => {
    const { id, size, temporary } = await commit("hello object");
    expect(storage.kind).toBe("object-store");
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(size).toBe(12);
    expect(existsSync(temporary)).toBe(false);
    expect(await objectOf(id)).toBe("hello object");
    expect((await commit("other")).id).not.toBe(id);
  });

  it("openRange: a range is read from the store once, kept in the disk cache and served from there with the store down", async () => {
    const { id } = await commit("0123456789");
    sent = [];
    const range = await storage.openRange(id, 3, 7, 10);
    expect(await text(range.stream(1, 3))).toBe("456");
    expect((await range.readAll()).toString()).toBe("3456789");
    range.close();
    expect(cached()).toEqual([`${id}.3.7`]);
    expect(readFileSync(join(dir.path, "cache", `${id}.3.7`), "utf8")).toBe("3456789");
    await store.stop();
    try {
      expect(await readRange(id, 3, 7, 10)).toBe("3456789");
      expect(sent).toEqual(["GetObject"]);
      await expect(storage.openRange(id, 0, 1, 10)).rejects.toThrow(ObjectStoreUnavailableError);
    } finally {
      await store.start();
    }
    expect(await readRange(id, 0, 1, 10)).toBe("0");
    expect(await readRange(id, 9, 1, 10)).toBe("9");
  });

  it("openRange: two reads of one range at once make one request, of two ranges two; once dropped from the cache, a range is asked for again", async () => {
    const { id } = await commit("abcdef");
    sent = [];
    const both = await Promise.all([readRange(id, 1, 4, 6), readRange(id, 1, 4, 6)]);
    expect(both).toEqual(["bcde", "bcde"]);
    expect(sent).toEqual(["GetObject"]);
    // Ranges of another start or length are fetched on their own, at the same time; one inside a
    // kept range is read from it.
    expect(await Promise.all([readRange(id, 0, 2, 6), readRange(id, 4, 2, 6)])).toEqual(["ab", "ef"]);
    expect(await readRange(id, 2, 2, 6)).toBe("cd");
    expect(sent).toEqual(["GetObject", "GetObject", "GetObject"]);
    sent = [];
    // Gone from the disk while the cache still names it (evicted between being kept and opened).
    rmSync(join(dir.path, "cache", `${id}.1.4`));
    expect(await readRange(id, 1, 4, 6)).toBe("bcde");
    expect(sent).toEqual(["GetObject"]);
  });

  it("openRange with readAheadBytes: a short range is read with the rest of its aligned blocks, and its neighbours, at once or after, come from that one read", async () => {
    await storage.close();
    storage = new S3PackStorage({
      client,
      location: settings.location,
      cache: new DiskRangeCache(join(dir.path, "cache"), 1024 * 1024),
      timeoutMs: settings.timeoutMs,
      readAheadBytes: 10,
    });
    const { id } = await commit("abcdefghijklmnopqrstuvwxy");
    sent = [];
    // Two ranges of the block 10-19 asked at once: one read of the block.
    expect(await Promise.all([readRange(id, 12, 3, 25), readRange(id, 16, 2, 25)])).toEqual(["mno", "qr"]);
    expect(sent).toEqual(["GetObject"]);
    expect(cached()).toEqual([`${id}.10.10`]);
    expect(await readRange(id, 10, 10, 25)).toBe("klmnopqrst");
    expect(sent).toEqual(["GetObject"]);
    // Across a block's end: both blocks; the last block ends with the pack; a long range alone.
    expect(await readRange(id, 8, 4, 25)).toBe("ijkl");
    expect(await readRange(id, 21, 2, 25)).toBe("vw");
    expect(await readRange(id, 5, 20, 25)).toBe("fghijklmnopqrstuvwxy");
    expect(sent).toHaveLength(4);
    expect(cached()).toEqual([`${id}.0.20`, `${id}.10.10`, `${id}.20.5`, `${id}.5.20`].sort());
  });

  it("readWindow: a range shorter than the block, its aligned blocks within the pack; a longer one, or no block, itself", () => {
    expect(readWindow(12, 3, 100, 10)).toEqual({ start: 10, length: 10 });
    expect(readWindow(10, 10, 100, 20)).toEqual({ start: 0, length: 20 });
    expect(readWindow(18, 4, 100, 10)).toEqual({ start: 10, length: 20 });
    expect(readWindow(92, 3, 95, 10)).toEqual({ start: 90, length: 5 });
    expect(readWindow(12, 10, 100, 10)).toEqual({ start: 12, length: 10 });
    expect(readWindow(12, 3, 100, 0)).toEqual({ start: 12, length: 3 });
  });

  it("openRange: no recorded size, or a range past it, is PackDamagedError before any request; an empty range is empty without one", async () => {
    const { id } = await commit("abc");
    sent = [];
    await expect(storage.openRange(id, 0, 1, undefined)).rejects.toThrow(
      new PackDamagedError(`its pack ${id} holds no recorded bytes, short of the range`),
    );
    await expect(storage.openRange(id, 1, 3, 3)).rejects.toThrow(
      new PackDamagedError(`its pack ${id} holds 3 bytes, short of the range`),
    );
    const empty = await storage.openRange(id, 3, 0, 3);
    expect(await text(empty.stream(0, -1))).toBe("");
    expect((await empty.readAll()).length).toBe(0);
    empty.close();
    expect(sent).toEqual([]);
    expect(cached()).toEqual([]);
  });

  it("openRange: an object of another size than its row is PackDamagedError, a missing one PackMissingError; nothing kept", async () => {
    const { id } = await commit("0123456789");
    await expect(storage.openRange(id, 0, 4, 12)).rejects.toThrow(
      new PackDamagedError(`its pack ${id} holds 10 bytes, its row says 12`),
    );
    await expect(storage.openRange(ABSENT, 0, 4, 12)).rejects.toThrow(
      new PackMissingError(`reading pack ${ABSENT}: no such object`),
    );
    expect(cached()).toEqual([]);
  });

  it("delete: the object is gone and its kept ranges with it; deleting a pack that is gone succeeds", async () => {
    const { id } = await commit("doomed");
    expect(await readRange(id, 0, 3, 6)).toBe("doo");
    await storage.delete(id);
    expect(cached()).toEqual([]);
    await expect(storage.openRange(id, 0, 3, 6)).rejects.toThrow(PackMissingError);
    await storage.delete(id);
    expect(sent.filter((name) => name === "DeleteObject")).toHaveLength(2);
  });

  it("delete, commit: an id that is not a pack id names no object: refused without a request", async () => {
    sent = [];
    const refused = await storage.delete("../x").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ObjectStoreUnavailableError);
    expect(((refused as Error).cause as Error).message).toBe("deleting pack ../x: Error");
    expect((((refused as Error).cause as Error).cause as Error).message).toBe('not a pack id: "../x"');
    expect(sent).toEqual([]);
  });

  it("list: every pack object under <prefix>packs/, with when it was written; other keys left out", async () => {
    const before = Date.now();
    const { id } = await commit("listed");
    const { id: second } = await commit("also listed");
    const { bucket, prefix } = settings.location;
    const put = (Key: string) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: "", ContentLength: 0 }));
    await put(`${prefix}packs/readme.txt`);
    await put(`${prefix}packs/sub/${ABSENT}.pack`);
    await put(`${prefix}packs/${ABSENT}.pack.old`);
    await put(`${prefix}other/${ABSENT}.pack`);
    await put(`${ABSENT}.pack`);
    sent = [];
    const packs = await storage.list();
    expect(sent).toEqual(["ListObjectsV2"]);
    expect(packs.map((pack) => pack.id).sort()).toEqual([id, second].sort());
    for (const pack of packs) {
      // S3 keeps LastModified to the second.
      expect(pack.writtenAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
      expect(pack.writtenAt).toBeLessThanOrEqual(Date.now());
    }
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: `${ABSENT}.pack` }));
  });

  it("every request to a store that is down is ObjectStoreUnavailableError saying which request; check resolves once it is back", async () => {
    const { id } = await commit("abc");
    await store.stop();
    const causes: string[] = [];
    try {
      const writer = new PackWriter(join(dir.path, "down.tmp"));
      await writer.append(Buffer.from("x"));
      for (const request of [
        () => storage.commit(writer),
        () => storage.openRange(id, 0, 1, 3),
        () => storage.delete(id),
        () => storage.list(),
        () => storage.check(),
      ]) {
        const error = await request().catch((failure: unknown) => failure);
        expect(error).toBeInstanceOf(ObjectStoreUnavailableError);
        causes.push(((error as Error).cause as Error).message.replace(/[0-9a-f]{24}/, "<id>"));
      }
    } finally {
      await store.start();
    }
    expect(causes).toEqual([
      "storing pack <id>: ECONNREFUSED",
      "reading pack <id>: ECONNREFUSED",
      "deleting pack <id>: ECONNREFUSED",
      "listing packs: ECONNREFUSED",
      "reaching the bucket: ECONNREFUSED",
    ]);
    await expect(storage.check()).resolves.toBeUndefined();
  });
  /** Runs `body` with a storage whose store takes connections and never answers. */
  const withSilentStore = async (timeoutMs: number, body: (mute: S3PackStorage) => Promise<void>) => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    const mute = new S3PackStorage({
      // The client's own timeout far off: only the storage's bounds a request.
      client: createS3Client({
        ...settings,
        endpoint: `http://127.0.0.1:${port}`,
        timeoutMs: 60_000,
      }),
      location: settings.location,
      cache: new DiskRangeCache(join(dir.path, "mute-cache"), 1024),
      timeoutMs,
    });
    try {
      await body(mute);
    } finally {
      await mute.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  };

  it("check: a store that takes the connection and never answers fails the check within 3 s, however long the timeout", async () => {
    await withSilentStore(60_000, async (mute) => {
      const started = Date.now();
      await expect(mute.check()).rejects.toThrow(ObjectStoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });

  it("commit, delete, list: a store that never answers fails each with ObjectStoreUnavailableError once the timeout is up, not a hang", async () => {
    await withSilentStore(300, async (mute) => {
      const writer = new PackWriter(join(dir.path, "mute.tmp"));
      await writer.append(Buffer.from("never stored"));
      await expect(mute.commit(writer)).rejects.toThrow(ObjectStoreUnavailableError);
      await expect(mute.delete(ABSENT)).rejects.toThrow(ObjectStoreUnavailableError);
      await expect(mute.list()).rejects.toThrow(ObjectStoreUnavailableError);
    });
  }, 15_000);

  it("close: the client is destroyed", async () => {
    let destroyed = 0;
    const destroy = client.destroy.bind(client);
    client.destroy = () => {
      destroyed++;
      destroy();
    };
    await storage.close();
    expect(destroyed).toBe(1);
  });
});
