import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hex64, identity, manifestOf, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { SeededRandom } from "../support/seeded-random.js";
import { tempDir } from "../support/server.js";
import { ensureBuilt } from "../support/build.js";
import { type ServerProcess, spawnServer } from "../support/server-process.js";
import { blobStoreState, databaseFiles, integrityCheck } from "../support/store-snapshot.js";
import { canonicalPath } from "../support/site-paths.js";

/**
 * How much load: a count of requests, not a time, so the same work is done on any machine (about
 * 10 s here). `HARDENING_LOAD_SECONDS=60` runs for the full minute instead, up to
 * `HARDENING_LOAD_MAX_REQUESTS`.
 */
const LOAD_SECONDS = process.env.HARDENING_LOAD_SECONDS
  ? Number(process.env.HARDENING_LOAD_SECONDS)
  : undefined;
const MAX_REQUESTS = Number(
  process.env.HARDENING_LOAD_MAX_REQUESTS ?? (LOAD_SECONDS === undefined ? 8_000 : 200_000),
);
const WORKERS = 8;
const CREATE_LIMIT = 25;
const MIB = 1024 * 1024;

type Files = Record<string, Buffer>;

describe("sustained mixed load", () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess;
  const random = new SeededRandom(20_260_505);
  const counts: Record<string, number> = {};
  const failures: string[] = [];
  const rss: { requests: number; bytes: number }[] = [];
  let requests = 0;

  beforeAll(async () => {
    ensureBuilt();
    dir = tempDir("deploy-load-");
    server = await spawnServer(dir.path, {
      CREATE_LIMIT_PER_ADDRESS: String(CREATE_LIMIT),
      CREATE_LIMIT_PER_FINGERPRINT: "0",
      // The load prepares far more often than a person would: it measures work, not refusals.
      PREPARE_LIMIT_PER_PROJECT: "0",
      PREPARE_LIMIT_PER_ADDRESS: "0",
      DOMAIN_LIMIT_PER_PROJECT: "0",
      DOMAIN_LIMIT_PER_ADDRESS: "0",
      // Small enough that the edge's cache is full early: its growth is not mistaken for a leak.
      EDGE_CACHE_BYTES: String(8 * MIB),
      LOG_LEVEL: "warn",
    });
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    dir?.cleanup();
  });

  /** Counts an answer; anything but the expected statuses is a failure to report. */
  function tally(kind: string, status: number, expected: number[], detail = ""): boolean {
    requests++;
    counts[`${kind} ${status}`] = (counts[`${kind} ${status}`] ?? 0) + 1;
    if (!expected.includes(status)) {
      failures.push(`${kind}: ${status} ${detail.slice(0, 200)}`);
      return false;
    }
    return true;
  }

  /** A site for one worker's project: a shared stylesheet, a page, some unique bytes. */
  function site(label: string): Files {
    return {
      "/index.html": Buffer.from(`<h1>${label}</h1>`),
      "/shared.css": Buffer.from("body { font-family: sans-serif } /* every site */"),
      "/data.bin": Buffer.concat([Buffer.from(label), random.bytes(random.int(100, 120_000))]),
    };
  }

  /** One worker: its own projects, deployed, read, renamed and deleted in a seeded mix. */
  async function worker(id: number, deadline: number): Promise<void> {
    const mine: { p: TestProject; files: Files; revisionHost: string }[] = [];
    let serial = 0;
    const create = async (): Promise<TestProject | undefined> => {
      const body = {
        projectHash: hex64(`load-${id}-${serial}`),
        anonFingerprint: hex64(`load-fp-${id}-${serial}`),
      };
      serial++;
      const response = await api(server.urls.api, "POST", "/projects", { body });
      if (response.status === 429) {
        tally("create", 429, [429]);
        expect(response.headers.get("retry-after")).toMatch(/^\d+$/);
        return undefined;
      }
      if (!tally("create", response.status, [201], JSON.stringify(response.body))) return undefined;
      return {
        ...body,
        slug: response.body.project.projectSlug,
        token: response.body.apiToken,
        project: response.body.project,
      };
    };
    const deploy = async (entry: { p: TestProject; files: Files; revisionHost: string }, files: Files) => {
      const { manifest, byHash } = await manifestOf(entry.p.slug, files);
      const prepared = await api(server.urls.api, "POST", `/projects/${entry.p.slug}/prepare`, {
        token: entry.p.token,
        body: { ...identity(entry.p), manifest },
      });
      if (!tally("prepare", prepared.status, [200], JSON.stringify(prepared.body))) return;
      let jwt: string = prepared.body.uploadJwt;
      for (const bucket of prepared.body.buckets as string[][]) {
        const parts = bucket.map((hash) => ({ hash, bytes: byHash.get(hash)! }));
        const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, parts);
        if (!tally("upload", uploaded.status, [201, 202], JSON.stringify(uploaded.body))) return;
        if (uploaded.status === 201) jwt = uploaded.body.result.jwt;
      }
      const done = await api(server.urls.api, "POST", `/projects/${entry.p.slug}/deploy`, {
        token: entry.p.token,
        body: { ...identity(entry.p), deployId: prepared.body.deployId, completionJwt: jwt },
      });
      if (!tally("deploy", done.status, [200], JSON.stringify(done.body))) return;
      entry.files = files;
      entry.revisionHost = new URL(done.body.revisionUrl).hostname;
    };
    const read = async (entry: { p: TestProject; files: Files; revisionHost: string }) => {
      const paths = Object.keys(entry.files);
      const path = paths[random.int(0, paths.length - 1)]!;
      const host = random.next() < 0.7 ? `${entry.p.slug}.localhost` : entry.revisionHost;
      const headers: Record<string, string> = random.next() < 0.3 ? { "accept-encoding": "br, gzip" } : {};
      if (random.next() < 0.2) headers.range = "bytes=0-99";
      const response = await edgeGet(server.urls.edge, host, canonicalPath(path), headers);
      if (!tally("edge", response.status, [200, 206], path)) return;
      if (
        response.status === 200 &&
        !headers["accept-encoding"] &&
        !response.body.equals(entry.files[path]!)
      ) {
        failures.push(`edge: ${host}${path} served other bytes`);
      }
    };

    while (Date.now() < deadline && requests < MAX_REQUESTS) {
      const roll = random.next();
      if (mine.length < 2 || roll < 0.06) {
        const p = await create();
        if (p) {
          const entry = { p, files: {} as Files, revisionHost: "" };
          await deploy(entry, site(`load ${id}/${serial}`));
          if (entry.revisionHost) mine.push(entry);
        }
      } else if (roll < 0.3) {
        const entry = mine[random.int(0, mine.length - 1)]!;
        await deploy(entry, site(`load ${id}/${serial++} redeploy`));
      } else if (roll < 0.34) {
        const entry = mine[random.int(0, mine.length - 1)]!;
        const domain = `w${id}-${serial++}.load.example`;
        const claimed = await api(server.urls.api, "POST", `/projects/${entry.p.slug}/domains`, {
          token: entry.p.token,
          body: { ...identity(entry.p), domain },
        });
        tally("domain", claimed.status, [200], JSON.stringify(claimed.body));
        const reset = await api(server.urls.api, "DELETE", `/projects/${entry.p.slug}/domains`, {
          token: entry.p.token,
          body: identity(entry.p),
        });
        tally("reset domain", reset.status, [200], JSON.stringify(reset.body));
      } else if (roll < 0.37 && mine.length > 2) {
        const [entry] = mine.splice(random.int(0, mine.length - 1), 1);
        const deleted = await api(server.urls.api, "DELETE", `/projects/${entry!.p.slug}`, {
          token: entry!.p.token,
          body: identity(entry!.p),
        });
        tally("delete", deleted.status, [200], JSON.stringify(deleted.body));
      } else {
        for (let i = 0; i < 5; i++) await read(mine[random.int(0, mine.length - 1)]!);
      }
    }
  }

  it(
    "load: creates, prepares, uploads, deploys and edge reads under load: no errors but deliberate 429s, memory flat",
    async () => {
      const started = Date.now();
      const deadline = LOAD_SECONDS === undefined ? Infinity : started + LOAD_SECONDS * 1000;
      const sampler = setInterval(() => rss.push({ requests, bytes: server.rss() }), 250);
      try {
        await Promise.all(Array.from({ length: WORKERS }, (_, id) => worker(id, deadline)));
      } finally {
        clearInterval(sampler);
      }
      const seconds = (Date.now() - started) / 1000;
      const final = server.rss();
      // The first half of the work, by requests answered (whatever the machine's speed).
      const half = rss.filter((s) => s.requests <= requests / 2);
      const firstHalfPeak = Math.max(...half.map((s) => s.bytes));
      const mb = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;
      console.log(
        `load: ${requests} requests in ${seconds.toFixed(1)} s (${Math.round(requests / seconds)}/s); ` +
          `${JSON.stringify(counts)}; RSS MiB first-half peak ${mb(firstHalfPeak)}, ` +
          `end ${mb(final)}, samples ${JSON.stringify(rss.filter((_, i) => i % 4 === 0).map((s) => mb(s.bytes)))}`,
      );
      expect(failures, failures.slice(0, 10).join("\n")).toEqual([]);
      // The whole mix ran (a count of each kind of success, not a rate: speed is the benchmarks').
      for (const kind of [
        "create 201",
        "prepare 200",
        "upload 201",
        "deploy 200",
        "edge 200",
        "delete 200",
      ]) {
        expect(counts[kind] ?? 0, kind).toBeGreaterThan(0);
      }
      expect(
        counts["create 429"] ?? 0,
        "the create limit was reached: 429s are part of the mix",
      ).toBeGreaterThan(0);
      // Flat: what the server holds at the end is what it held in the first half, give or take.
      expect(final, `RSS grew from ${mb(firstHalfPeak)} MiB to ${mb(final)} MiB`).toBeLessThan(
        firstHalfPeak * 1.25 + 16 * MIB,
      );
      const health = await api(server.urls.api, "GET", "/healthz");
      expect(health.status).toBe(200);
      const disk = blobStoreState(dir.path);
      expect(disk.missingFiles).toEqual([]);
      expect(disk.temporaryFiles).toEqual([]);
      expect(integrityCheck(databaseFiles(dir.path).metadata)).toEqual(["ok"]);
      expect(integrityCheck(databaseFiles(dir.path).platform)).toEqual(["ok"]);
    },
    (LOAD_SECONDS ?? 60) * 1000 + 60_000,
  );
});
