import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, identity, manifestOf, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { SeededRandom } from "../support/seeded-random.js";
import { tempDir } from "../support/server.js";
import { ensureBuilt } from "../support/build.js";
import { type ServerProcess, spawnServer } from "../support/server-process.js";
import { blobStoreState, databaseFiles, integrityCheck, queryDatabase } from "../support/store-snapshot.js";
import { canonicalPath } from "../support/site-paths.js";

type Files = Record<string, Buffer>;

const ROUNDS = Number(process.env.HARDENING_CRASH_ROUNDS ?? 10);
const SEED = Number(process.env.HARDENING_CRASH_SEED ?? 5_0505);
const PROJECTS = 4;

/** What the client side knows of a project: what was acknowledged, and a deploy in flight. */
interface Tracked {
  p: TestProject;
  acked: { files: Files; revisionUrl: string } | undefined;
  pending:
    | {
        files: Files;
        byHash: Map<string, Buffer>;
        deployId: string;
        uploadUrl: string;
        uploadJwt: string;
        buckets: string[][];
        completionJwt: string | undefined;
        /** True once the deploy request was sent: it may have published before the crash. */
        sent: boolean;
      }
    | undefined;
}

/** Where a round's SIGKILL lands. */
type KillMoment = "upload" | "publish" | "anytime";

describe("crash recovery", () => {
  let dir: ReturnType<typeof tempDir>;
  /** The server of the current round; killed in afterAll if a failure left it running. */
  let server: ServerProcess | undefined;
  const random = new SeededRandom(SEED);
  const tracked: Tracked[] = [];
  const figures = {
    rounds: 0,
    killedDuring: {} as Record<string, number>,
    acked: 0,
    /** Deploys whose publish landed but whose answer the kill cut off. */
    publishedUnacknowledged: 0,
    resumed: 0,
    retried: 0,
  };
  let unnamedBlobFiles = 0;

  beforeAll(() => {
    ensureBuilt();
    dir = tempDir("deploy-crash-");
  }, 180_000);
  afterAll(async () => {
    console.log(`crash rounds: ${JSON.stringify({ ...figures, unnamedBlobFiles })}`);
    await server?.kill();
    dir?.cleanup();
  });

  const start = () =>
    spawnServer(dir.path, {
      CREATE_LIMIT_PER_ADDRESS: "0",
      CREATE_LIMIT_PER_FINGERPRINT: "0",
      LOG_LEVEL: "warn",
    });

  /** A site whose files all carry its label, sized so uploads take a few moments. */
  function siteFiles(label: string): Files {
    const files: Files = {
      "/index.html": Buffer.from(`<h1>${label}</h1>`),
      "/style.css": Buffer.from(`/* ${label} */ body { margin: 0 }`),
    };
    const count = random.int(1, 4);
    for (let i = 0; i < count; i++) {
      files[`/assets/blob-${i}.bin`] = Buffer.concat([
        Buffer.from(label),
        random.bytes(random.int(1_000, 900_000)),
      ]);
    }
    return files;
  }

  /** Every file of `files` served byte for byte on `host`; false at the first difference. */
  async function servesAll(server: ServerProcess, host: string, files: Files): Promise<boolean> {
    for (const [path, bytes] of Object.entries(files)) {
      const response = await edgeGet(server.urls.edge, host, canonicalPath(path));
      if (response.status !== 200 || !response.body.equals(bytes)) return false;
    }
    return true;
  }

  /** The invariants after a restart, then the client's recovery of deploys in flight. */
  async function verifyAndRecover(server: ServerProcess, round: number): Promise<void> {
    const files = databaseFiles(dir.path);
    expect(integrityCheck(files.metadata), `round ${round}: metadata integrity`).toEqual(["ok"]);
    expect(integrityCheck(files.platform), `round ${round}: platform integrity`).toEqual(["ok"]);
    const disk = blobStoreState(dir.path);
    expect(disk.missingFiles, `round ${round}: blob rows without their file`).toEqual([]);
    expect(disk.wrongSize, `round ${round}: blob files of the wrong size`).toEqual([]);
    expect(disk.temporaryFiles, `round ${round}: temporary files survive a restart`).toEqual([]);
    unnamedBlobFiles = disk.unnamedFiles.length;
    const orphans = queryDatabase(
      files.platform,
      "SELECT f.hash FROM manifest_files f LEFT JOIN blobs b ON b.hash = f.hash WHERE b.hash IS NULL AND f.removed = 0",
    );
    expect(orphans, `round ${round}: published files without content`).toEqual([]);

    for (const t of tracked) {
      const host = `${t.p.slug}.localhost`;
      const context = `round ${round} ${t.p.slug}`;
      if (t.acked) {
        // The last acknowledged publish serves whole, unless the deploy in flight published too.
        const ackedServes = await servesAll(server, host, t.acked.files);
        const pendingServes = t.pending?.sent ? await servesAll(server, host, t.pending.files) : false;
        if (pendingServes) figures.publishedUnacknowledged++;
        expect(
          ackedServes || pendingServes,
          `${context}: production serves neither the acknowledged nor the pending deploy whole`,
        ).toBe(true);
        expect(
          await servesAll(server, new URL(t.acked.revisionUrl).hostname, t.acked.files),
          `${context}: revision URL`,
        ).toBe(true);
      }
      // The client picks up where it was: finish uploading with the same token, complete again.
      const pending = t.pending;
      if (!pending) continue;
      let jwt = pending.completionJwt ?? (pending.buckets.length === 0 ? pending.uploadJwt : undefined);
      if (jwt === undefined) {
        figures.resumed++;
        for (const bucket of pending.buckets) {
          const parts = bucket.map((hash) => ({ hash, bytes: pending.byHash.get(hash)! }));
          // The restarted server listens on new ports (PORT=0); in production the URL is the same.
          const url = new URL(pending.uploadUrl);
          url.host = new URL(server.urls.upload).host;
          const response = await uploadBucket(url.href, pending.uploadJwt, parts);
          expect([201, 202], `${context}: resumed upload ${JSON.stringify(response.body)}`).toContain(
            response.status,
          );
          if (response.status === 201) jwt = response.body.result.jwt;
        }
      } else {
        figures.retried++;
      }
      expect(jwt, `${context}: no completion token after resuming`).toBeDefined();
      const done = await api(server.urls.api, "POST", `/projects/${t.p.slug}/deploy`, {
        token: t.p.token,
        body: { ...identity(t.p), deployId: pending.deployId, completionJwt: jwt },
      });
      expect(done.status, `${context}: completing after the restart: ${JSON.stringify(done.body)}`).toBe(200);
      t.acked = { files: pending.files, revisionUrl: done.body.revisionUrl };
      t.pending = undefined;
      expect(await servesAll(server, host, t.acked.files), `${context}: production after recovery`).toBe(
        true,
      );
    }
    // The two stores agree once the client has recovered.
    const sites = new Map(
      queryDatabase<{ project_slug: string; revision_id: string }>(
        files.platform,
        "SELECT project_slug, revision_id FROM sites",
      ).map((row) => [row.project_slug, row.revision_id]),
    );
    for (const row of queryDatabase<{ slug: string; revision_id: string | null }>(
      files.metadata,
      "SELECT slug, revision_id FROM projects",
    )) {
      if (row.revision_id !== null)
        expect(sites.get(row.slug), `round ${round}: ${row.slug} stores disagree`).toBe(row.revision_id);
    }
  }

  /** One project's deploy, step by step, telling `step` where it is; stops quietly when the server dies. */
  async function deploy(
    server: ServerProcess,
    t: Tracked,
    label: string,
    step: (name: KillMoment) => void,
  ): Promise<void> {
    const files = siteFiles(label);
    const { manifest, byHash } = await manifestOf(t.p.slug, files);
    const prepared = await api(server.urls.api, "POST", `/projects/${t.p.slug}/prepare`, {
      token: t.p.token,
      body: { ...identity(t.p), manifest },
    });
    if (prepared.status !== 200)
      throw new Error(`prepare: ${prepared.status} ${JSON.stringify(prepared.body)}`);
    const body = prepared.body;
    const pending = {
      files,
      byHash,
      deployId: body.deployId as string,
      uploadUrl: body.urls.upload as string,
      uploadJwt: body.uploadJwt as string,
      buckets: body.buckets as string[][],
      completionJwt: undefined as string | undefined,
      sent: false,
    };
    t.pending = pending;
    let jwt: string | undefined = pending.buckets.length === 0 ? pending.uploadJwt : undefined;
    for (const bucket of pending.buckets) {
      step("upload");
      const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
      const response = await uploadBucket(pending.uploadUrl, pending.uploadJwt, parts);
      if (response.status === 201) jwt = pending.completionJwt = response.body.result.jwt;
      else if (response.status !== 202) throw new Error(`upload: ${response.status}`);
    }
    pending.sent = true;
    step("publish");
    const done = await api(server.urls.api, "POST", `/projects/${t.p.slug}/deploy`, {
      token: t.p.token,
      body: { ...identity(t.p), deployId: pending.deployId, completionJwt: jwt },
    });
    if (done.status !== 200) throw new Error(`deploy: ${done.status} ${JSON.stringify(done.body)}`);
    t.acked = { files, revisionUrl: done.body.revisionUrl };
    t.pending = undefined;
    figures.acked++;
  }

  it(
    "crash: SIGKILL at random moments of upload and publish loses no acknowledged publish",
    async () => {
      server = await start();
      for (let i = 0; i < PROJECTS; i++) {
        const p = await createTestProject(server.urls.api, `crash-${SEED}-${i}`);
        tracked.push({ p, acked: undefined, pending: undefined });
      }
      for (let round = 1; round <= ROUNDS; round++) {
        const running = server;
        // Each moment in turn, so every run kills during uploads, during publishes and at random.
        const moment = (["upload", "publish", "anytime"] as const)[round % 3]!;
        const delayMs = moment === "anytime" ? random.int(0, 400) : random.int(0, 12);
        const target = random.int(0, PROJECTS - 1);
        let killed: Promise<void> | undefined;
        const kill = () => {
          if (killed) return;
          figures.killedDuring[moment] = (figures.killedDuring[moment] ?? 0) + 1;
          killed = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() => running.kill());
        };
        if (moment === "anytime") kill();
        const step = (index: number) => (name: KillMoment) => {
          if (name === moment && index === target) kill();
        };
        const work = tracked.map((t, i) =>
          deploy(running, t, `round ${round} project ${i}`, step(i)).catch((error: unknown) => {
            // Requests cut by the kill fail; any other failure is a finding.
            if (!killed) throw error;
          }),
        );
        await Promise.all(work);
        // Every deploy finished before the kill came: kill now, between requests.
        kill();
        await killed;
        figures.rounds++;
        server = await start();
        await verifyAndRecover(server, round);
      }
      // After the last crash: every project deploys again and serves it.
      for (const [i, t] of tracked.entries()) {
        await deploy(server, t, `after the crashes ${i}`, () => undefined);
        expect(await servesAll(server, `${t.p.slug}.localhost`, t.acked!.files)).toBe(true);
      }
      await server.stop();
      const exit = await server.exited;
      expect(exit.code, server.output()).toBe(0);
      expect(integrityCheck(databaseFiles(dir.path).metadata)).toEqual(["ok"]);
      expect(integrityCheck(databaseFiles(dir.path).platform)).toEqual(["ok"]);
    },
    Math.max(120_000, ROUNDS * 15_000),
  );
});
