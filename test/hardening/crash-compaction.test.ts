import { watch } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/build.js";
import { createTestProject, deleteProject, deployFiles, type TestProject } from "../support/deploy-flow.js";
import { edgeGet } from "../support/http.js";
import { SeededRandom } from "../support/seeded-random.js";
import { type ServerProcess, spawnServer } from "../support/server-process.js";
import { tempDir } from "../support/server.js";
import { blobStoreState, databaseFiles, integrityCheck, queryDatabase } from "../support/store-snapshot.js";

const ROUNDS = Number(process.env.HARDENING_COMPACTION_ROUNDS ?? 4);
const SEED = Number(process.env.HARDENING_CRASH_SEED ?? 5_0505);
const FILE_BYTES = 512 * 1024;

/**
 * SIGKILL while the sweep compacts a pack. Each round leaves a pack just under half alive (a
 * deleted project's files beside files another project still serves), lets the sweeper start
 * compacting it, and kills the server a random few milliseconds after compaction's temporary pack
 * appears: while it copies, syncs, renames, switches rows or deletes the old file. After a
 * restart, every file of the surviving project serves byte for byte and the content on disk
 * matches its rows.
 */
describe("crash during compaction", () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess | undefined;
  const random = new SeededRandom(SEED);
  const figures = { rounds: 0, killedWhileCompacting: 0, compactedBeforeKill: 0 };

  beforeAll(() => {
    ensureBuilt();
    dir = tempDir("deploy-crash-compaction-");
  }, 180_000);
  afterAll(async () => {
    console.log(`compaction crash rounds: ${JSON.stringify(figures)}`);
    await server?.kill();
    dir?.cleanup();
  });

  const start = (sweepSeconds: number) =>
    spawnServer(dir.path, {
      CREATE_LIMIT_PER_ADDRESS: "0",
      CREATE_LIMIT_PER_FINGERPRINT: "0",
      SWEEP_INTERVAL_SECONDS: String(sweepSeconds),
      LOG_LEVEL: "warn",
    });

  /** `count` files of `size` random bytes, named under `prefix`. */
  function files(prefix: string, count: number, size: number): Record<string, Buffer> {
    const out: Record<string, Buffer> = {};
    for (let i = 0; i < count; i++) out[`/${prefix}/${i}.bin`] = random.bytes(size);
    return out;
  }

  async function servesAll(s: ServerProcess, p: TestProject, site: Record<string, Buffer>): Promise<boolean> {
    for (const [path, bytes] of Object.entries(site)) {
      const reply = await edgeGet(s.urls.edge, `${p.slug}.localhost`, path);
      if (reply.status !== 200 || !reply.body.equals(bytes)) return false;
    }
    return true;
  }

  it(
    "crash: SIGKILL at random moments of compaction loses no live content and leaves nothing the next start cannot clean",
    async () => {
      // Rounds are set up on a server whose sweeper does not run meanwhile.
      server = await start(3600);
      for (let round = 1; round <= ROUNDS; round++) {
        const kept = await createTestProject(server.urls.api, `kept-${round}`);
        const gone = await createTestProject(server.urls.api, `gone-${round}`);
        const shared = files(`shared-${round}`, 6, FILE_BYTES);
        const dead = files(`dead-${round}`, 7, FILE_BYTES);
        // The deleted project uploads everything, so one pack holds both kinds.
        await deployFiles(server.urls.api, gone, { ...shared, ...dead });
        await deployFiles(server.urls.api, kept, shared);
        expect((await deleteProject(server.urls.api, gone)).status).toBe(200);
        await server.stop();

        // A server that sweeps every half second (its first sweep comes after it is listening and
        // the watcher below is set): kill it once compaction has begun writing.
        const running = (server = await start(0.5));
        const tmp = join(dir.path, "platform", "tmp");
        const delayMs = random.int(0, 60);
        await new Promise<void>((resolve) => {
          const watcher = watch(tmp, () => {
            watcher.close();
            figures.killedWhileCompacting++;
            setTimeout(() => void running.kill().then(resolve), delayMs);
          });
          // A compaction that finished without its file being seen still ends the round.
          setTimeout(() => {
            watcher.close();
            void running.kill().then(resolve);
          }, 5_000);
        });
        figures.rounds++;

        server = await start(3600);
        const db = databaseFiles(dir.path);
        expect(integrityCheck(db.platform), `round ${round}: platform integrity`).toEqual(["ok"]);
        const disk = blobStoreState(dir.path);
        expect(disk.missingFiles, `round ${round}: rows without their bytes`).toEqual([]);
        expect(disk.wrongSize, `round ${round}: packs of the wrong size`).toEqual([]);
        expect(disk.unnamedFiles, `round ${round}: files the start left unnamed`).toEqual([]);
        expect(disk.temporaryFiles, `round ${round}: temporary files`).toEqual([]);
        const compacted = queryDatabase<{ n: number }>(
          db.platform,
          "SELECT COUNT(*) AS n FROM packs WHERE live_bytes * 2 < size",
        )[0]!.n;
        if (compacted === 0) figures.compactedBeforeKill++;
        expect(await servesAll(server, kept, shared), `round ${round}: the kept project serves`).toBe(true);
      }
      await server.stop();
      // Every round reached compaction (the watcher saw its file).
      expect(figures.killedWhileCompacting).toBe(ROUNDS);
    },
    Math.max(120_000, ROUNDS * 20_000),
  );
});
