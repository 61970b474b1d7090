import { readdirSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  deleteProject,
  deployFiles as deploy,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { startTestServer } from "../support/server.js";
import { canonicalPath } from "../support/site-paths.js";
import { blobLocation, blobStoreState, databaseFiles, queryDatabase } from "../support/store-snapshot.js";
import { prepareFiles, storedBlobs } from "../support/upload-flow.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

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

/** Deploys and returns each path's asset hash. */
async function deployFiles(
  apiUrl: string,
  p: TestProject,
  files: Record<string, string>,
): Promise<{ hashes: Record<string, string> }> {
  await deploy(apiUrl, p, files);
  const { manifest } = await manifestOf(p.slug, files);
  const hashes: Record<string, string> = {};
  for (const path of Object.keys(files)) hashes[path] = manifest[`/${p.slug}${path}`]!.hash;
  return { hashes };
}

function packFiles(dataDir: string): string[] {
  return readdirSync(join(dataDir, "platform", "packs"));
}

function packRows(dataDir: string): { id: string; size: number; live_bytes: number }[] {
  return queryDatabase(databaseFiles(dataDir).platform, "SELECT id, size, live_bytes FROM packs");
}

describe("packs", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it("upload: one bucket of many files is one pack file, each blob a range of it", async () => {
    const p = await createTestProject(server.urls.api, "packs-one-file");
    const files: Record<string, string> = {};
    for (let i = 0; i < 200; i++) files[`/page-${i}.html`] = `<p>page ${i} ${noise(`p${i}`, 500)}</p>`;
    const before = packFiles(server.dataDir).length;
    const { hashes } = await deployFiles(server.urls.api, p, files);
    expect(packFiles(server.dataDir).length).toBe(before + 1);
    const packs = new Set(Object.values(hashes).map((hash) => blobLocation(server.dataDir, hash).path));
    expect(packs.size).toBe(1);
    for (const [path, body] of Object.entries(files)) {
      const reply = await edgeGet(server.urls.edge, `${p.slug}.localhost`, canonicalPath(path));
      expect(reply.body.toString(), path).toBe(body);
    }
  });

  it("sweep: a pack left mostly dead by a deletion is compacted; live content moves and serves, dead bytes are freed", async () => {
    const a = await createTestProject(server.urls.api, "packs-compact-a");
    const b = await createTestProject(server.urls.api, "packs-compact-b");
    const shared = `body { color: #123 } /* ${noise("shared", 2_000)} */`;
    const aOnly = noise("a only", 300_000);
    const { hashes } = await deployFiles(server.urls.api, a, { "/shared.css": shared, "/big.txt": aOnly });
    // B proves it has the shared file; its bytes stay in A's pack.
    await deployFiles(server.urls.api, b, { "/shared.css": shared, "/index.html": "<p>b</p>" });
    const sharedHash = hashes["/shared.css"]!;
    const oldPack = blobLocation(server.dataDir, sharedHash).path;
    expect(blobLocation(server.dataDir, hashes["/big.txt"]!).path).toBe(oldPack);

    expect((await deleteProject(server.urls.api, a)).status).toBe(200);
    const mostlyDead = packRows(server.dataDir).find((row) => oldPack.endsWith(`${row.id}.pack`))!;
    expect(mostlyDead.live_bytes * 2).toBeLessThan(mostlyDead.size);

    const onDisk = () =>
      packFiles(server.dataDir).reduce(
        (sum, name) => sum + statSync(join(server.dataDir, "platform", "packs", name)).size,
        0,
      );
    const before = onDisk();
    await server.platform.sweep(new Date(server.clock.now()));
    expect(before - onDisk()).toBeGreaterThanOrEqual(aOnly.length);
    expect(packFiles(server.dataDir)).not.toContain(oldPack.split("/").pop());
    expect(blobLocation(server.dataDir, sharedHash).path).not.toBe(oldPack);
    // Dead bytes stay at most as many as live ones, pack by pack.
    for (const row of packRows(server.dataDir)) expect(row.live_bytes * 2).toBeGreaterThanOrEqual(row.size);
    expect(blobStoreState(server.dataDir)).toMatchObject({
      missingFiles: [],
      wrongSize: [],
      unnamedFiles: [],
    });
    const served = await edgeGet(server.urls.edge, `${b.slug}.localhost`, "/shared.css");
    expect(served.body.toString()).toBe(shared);
  });

  it("edge: a pack cut short is never served: 500 for its file only, and the next prepare asks for it again", async () => {
    const p = await createTestProject(server.urls.api, "packs-damaged");
    const files = { "/index.html": "<p>whole</p>", "/cut.txt": noise("cut", 5_000) };
    const { hashes } = await deployFiles(server.urls.api, p, { "/cut.txt": files["/cut.txt"] });
    await deployFiles(server.urls.api, p, files);
    const cut = blobLocation(server.dataDir, hashes["/cut.txt"]!);
    truncateSync(cut.path, cut.offset + 10);
    const host = `${p.slug}.localhost`;
    expect((await edgeGet(server.urls.edge, host, "/cut.txt")).status).toBe(500);
    expect((await edgeGet(server.urls.edge, host, "/")).body.toString()).toBe("<p>whole</p>");

    const again = await prepareFiles(server.urls.api, p, files);
    expect(again.prepared.buckets.flat()).toEqual([hashes["/cut.txt"]]);
    // The upload repairs the row; the same revision serves the file again.
    await deployFiles(server.urls.api, p, files);
    const repaired = await edgeGet(server.urls.edge, host, "/cut.txt");
    expect(repaired.status).toBe(200);
    expect(repaired.body.toString()).toBe(files["/cut.txt"]);
    expect(storedBlobs(server.dataDir).has(hashes["/cut.txt"]!)).toBe(true);
    expect(statSync(blobLocation(server.dataDir, hashes["/cut.txt"]!).path).size).toBeGreaterThan(0);
  });
});
