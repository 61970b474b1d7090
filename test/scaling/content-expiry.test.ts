import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { createTestProject, deleteProject, deployFiles, type TestProject } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { describePostgres, testPostgres } from "../support/postgres.js";
import { startObjectStore, type TestObjectStore } from "../support/s3-server.js";
import { startTestServer, tempDir } from "../support/server.js";

type Server = Awaited<ReturnType<typeof startTestServer>>;

const SWEEP_SECONDS = 60;

/** Bytes that compress badly and differ per label, so each file is its own blob. */
function noise(label: string, size: number): string {
  let text = "";
  let state = [...label].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  while (text.length < size) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    text += state.toString(36);
  }
  return text.slice(0, size);
}

/** The blobs of which `server` keeps compressed variants on its disk. */
function variantsOnDisk(server: Server): string[] {
  const dir = join(server.dataDir, "platform", "variants");
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).flatMap((prefix) => readdirSync(join(dir, prefix)));
  return [...new Set(names.map((name) => name.slice(0, name.indexOf("."))))].sort();
}

/** The packs of which `server` keeps ranges on its disk (its range cache's files, by pack). */
function packsOnDisk(server: Server): string[] {
  const dir = join(server.dataDir, "platform", "range-cache");
  const names = existsSync(dir) ? readdirSync(dir) : [];
  return [...new Set(names.map((name) => name.slice(0, name.indexOf("."))))].sort();
}

const FILES = (label: string) => ({
  "/index.html": `<p>${label}</p>`,
  "/a.js": noise(`${label}-a`, 3_000),
  "/b.css": noise(`${label}-b`, 2_000),
});

await describePostgres("content deleted by one process leaves every other process's disk", () => {
  let store: TestObjectStore;
  const servers: Server[] = [];
  const dirs: { cleanup(): void }[] = [];
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => store.close());
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(servers.splice(0).map((server) => server.stop()));
    for (const dir of dirs.splice(0)) dir.cleanup();
  });

  /** Reads every file of `p` through `server`'s edge (its memory cache off: ranges go to disk). */
  async function readAll(server: Server, p: TestProject, files: Record<string, string>): Promise<void> {
    for (const [file, body] of Object.entries(files)) {
      const path = file === "/index.html" ? "/" : file;
      await expect
        .poll(async () => (await edgeGet(server.urls.edge, `${p.slug}.localhost`, path)).body.toString())
        .toBe(body);
    }
  }

  /** An API process (`deleter`) and an edge (`edge`, on `edgeDir`) on one schema and one bucket. */
  async function startTwo(edgeDir: string) {
    const { url, schema } = testPostgres();
    const objectStore = store.settings();
    const settings = {
      databaseUrl: url,
      databaseSchema: schema,
      objectStore,
      edgeCacheBytes: 0,
      createLimitPerAddress: 1000,
      sweepIntervalSeconds: SWEEP_SECONDS,
    };
    const deleter = await startTestServer(settings);
    servers.push(deleter);
    const start = async () => {
      const edge = await startTestServer({ ...settings, dataDir: edgeDir });
      servers.push(edge);
      return edge;
    };
    return { deleter, edge: await start(), restartEdge: start };
  }

  it("forgetDeletedContent: another process's delete leaves the edge's disk (ranges, variants) within a sweep interval; what is live stays", async () => {
    // Only the interval timers are faked: the processes' own I/O keeps real time.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const edgeDir = tempDir();
    dirs.push(edgeDir);
    const { deleter, edge } = await startTwo(edgeDir.path);
    const gone = await createTestProject(deleter.urls.api, "expiry-gone");
    const kept = await createTestProject(deleter.urls.api, "expiry-kept");
    await deployFiles(deleter.urls.api, gone, FILES("gone"));
    await deployFiles(deleter.urls.api, kept, FILES("kept"));
    await readAll(edge, gone, FILES("gone"));
    await readAll(edge, kept, FILES("kept"));
    const both = packsOnDisk(edge);
    expect(both).toHaveLength(2);
    // The edge keeps a compressed form of each script (its memory cache is off) on its disk too.
    for (const p of [gone, kept]) {
      const reply = await edgeGet(edge.urls.edge, `${p.slug}.localhost`, "/a.js", {
        "accept-encoding": "br",
      });
      expect(reply.status).toBe(200);
    }
    await expect.poll(() => variantsOnDisk(edge).length).toBe(2);
    const variants = variantsOnDisk(edge);

    expect((await deleteProject(deleter.urls.api, gone)).status).toBe(200);
    // The deleting process dropped its copies at once; the edge's wait for the interval.
    expect(packsOnDisk(edge)).toEqual(both);
    expect(variantsOnDisk(edge)).toEqual(variants);
    vi.advanceTimersByTime(SWEEP_SECONDS * 1000);
    await expect.poll(() => packsOnDisk(edge).length).toBe(1);
    await expect.poll(() => variantsOnDisk(edge).length).toBe(1);
    const [left] = packsOnDisk(edge);
    expect(both).toContain(left);
    expect(variants).toContain(variantsOnDisk(edge)[0]);
    await readAll(edge, kept, FILES("kept"));
    expect(packsOnDisk(edge)).toEqual([left]);
  });

  it("forgetDeletedContent: a pack deleted while the edge was down is gone from its disk once it starts again", async () => {
    const edgeDir = tempDir();
    dirs.push(edgeDir);
    const { deleter, edge, restartEdge } = await startTwo(edgeDir.path);
    const p = await createTestProject(deleter.urls.api, "expiry-down");
    await deployFiles(deleter.urls.api, p, FILES("down"));
    await readAll(edge, p, FILES("down"));
    expect(packsOnDisk(edge)).toHaveLength(1);
    await edge.stop();
    servers.splice(servers.indexOf(edge), 1);
    expect((await deleteProject(deleter.urls.api, p)).status).toBe(200);
    const again = await restartEdge();
    await expect.poll(() => packsOnDisk(again)).toEqual([]);
  });
});
