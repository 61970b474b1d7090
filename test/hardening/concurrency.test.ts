import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestProject,
  deployFiles,
  identity,
  manifestOf,
  type TestProject,
} from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";
import { blobStoreState, databaseFiles, queryDatabase } from "../support/store-snapshot.js";
import { completeDeploy, prepareFiles } from "../support/upload-flow.js";
import { canonicalPath } from "../support/site-paths.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;
type Files = Record<string, Buffer>;

/** A site whose every file names its deploy, plus content shared by every site. */
function siteFiles(label: string, shared: Buffer, large = 0): Files {
  const files: Files = {
    "/index.html": Buffer.from(`<h1>${label}</h1>`),
    "/about/index.html": Buffer.from(`<p>about ${label}</p>`),
    "/app.js": Buffer.from(`console.log(${JSON.stringify(label)});`),
    "/shared.css": shared,
  };
  if (large > 0) files["/data.bin"] = Buffer.concat([Buffer.from(label), randomBytes(large)]);
  return files;
}

describe("concurrency", () => {
  let server: TestServer;
  const shared = Buffer.from(`body { color: teal } /* ${randomBytes(8).toString("hex")} */`);

  beforeAll(async () => {
    server = await startTestServer({ createLimitPerAddress: 0, createLimitPerFingerprint: 0 });
  });
  afterAll(async () => server?.stop());

  /** Every file of `files` served byte for byte on `host`. */
  async function expectServes(host: string, files: Files, context: string): Promise<void> {
    for (const [path, bytes] of Object.entries(files)) {
      const response = await edgeGet(server.urls.edge, host, canonicalPath(path));
      expect(response.status, `${context} ${host}${path}`).toBe(200);
      expect(response.body.equals(bytes), `${context} ${host}${path}: other bytes`).toBe(true);
    }
  }

  /** The metadata store and the platform agree on every project's published revision. */
  function expectStoresAgree(): void {
    const files = databaseFiles(server.dataDir);
    const projects = queryDatabase<{ slug: string; revision_id: string | null }>(
      files.metadata,
      "SELECT slug, revision_id FROM projects",
    );
    const sites = new Map(
      queryDatabase<{ project_slug: string; revision_id: string | null }>(
        files.platform,
        "SELECT project_slug, revision_id FROM sites",
      ).map((row) => [row.project_slug, row.revision_id]),
    );
    for (const project of projects) {
      if (project.revision_id !== null)
        expect(sites.get(project.slug), project.slug).toBe(project.revision_id);
    }
    const orphans = queryDatabase(
      files.platform,
      "SELECT f.hash FROM manifest_files f LEFT JOIN blobs b ON b.hash = f.hash WHERE b.hash IS NULL AND f.removed = 0",
    );
    expect(orphans, "revision files without their blob").toEqual([]);
    const state = blobStoreState(server.dataDir);
    expect(state.missingFiles).toEqual([]);
    expect(state.wrongSize).toEqual([]);
  }

  it("concurrency: many deploys at once across many projects each serve their own files", async () => {
    const projects = await Promise.all(
      Array.from({ length: 24 }, (_, i) => createTestProject(server.urls.api, `many-${i}`)),
    );
    const sites = projects.map((p, i) => siteFiles(`many ${i} ${p.slug}`, shared, i % 3 === 0 ? 300_000 : 0));
    const results = await Promise.all(projects.map((p, i) => deployFiles(server.urls.api, p, sites[i]!)));
    for (const [i, p] of projects.entries()) {
      await expectServes(`${p.slug}.localhost`, sites[i]!, "production");
      await expectServes(new URL(results[i]!.deployed.revisionUrl).hostname, sites[i]!, "revision");
    }
    expectStoresAgree();
  });

  it("concurrency: two deploys of one project racing: the last completed wins, each revision stays whole", async () => {
    const p = await createTestProject(server.urls.api, "race-two");
    let current = siteFiles("race-two initial", shared);
    await deployFiles(server.urls.api, p, current);
    const host = `${p.slug}.localhost`;
    for (let round = 0; round < 8; round++) {
      const x = siteFiles(`round ${round} X`, shared, round % 2 ? 200_000 : 0);
      const y = siteFiles(`round ${round} Y`, shared, round % 2 ? 0 : 200_000);
      const [px, py] = await Promise.all([
        prepareFiles(server.urls.api, p, x),
        prepareFiles(server.urls.api, p, y),
      ]);
      const upload = async (prepared: Awaited<ReturnType<typeof prepareFiles>>) => {
        let jwt: string = prepared.prepared.uploadJwt;
        for (const bucket of prepared.prepared.buckets as string[][]) {
          const parts = bucket.map((hash) => ({ hash, bytes: prepared.byHash.get(hash)! }));
          const response = await uploadBucket(
            prepared.prepared.urls.upload,
            prepared.prepared.uploadJwt,
            parts,
          );
          expect([201, 202]).toContain(response.status);
          if (response.status === 201) jwt = response.body.result.jwt;
        }
        return jwt;
      };
      const [jx, jy] = await Promise.all([upload(px), upload(py)]);
      // Readers during the race see one whole deploy or another, never an error or a mix of bytes.
      const known = [current, x, y].map((files) => files["/index.html"]!.toString());
      let reading = true;
      const reader = (async () => {
        let reads = 0;
        while (reading || reads === 0) {
          const response = await edgeGet(server.urls.edge, host, "/");
          expect(response.status).toBe(200);
          expect(known).toContain(response.body.toString());
          reads++;
        }
        return reads;
      })();
      const [dx, dy] = await Promise.all([
        completeDeploy(server.urls.api, p, px.prepared.deployId, jx),
        completeDeploy(server.urls.api, p, py.prepared.deployId, jy),
      ]);
      reading = false;
      await reader;
      expect([dx.status, dy.status]).toEqual([200, 200]);
      // The revision completed last, by the store's own order, is the one published everywhere.
      const revisions = queryDatabase<{ revision_id: string }>(
        databaseFiles(server.dataDir).metadata,
        "SELECT revision_id FROM revisions WHERE project_slug = ? ORDER BY id DESC LIMIT 1",
        p.slug,
      );
      const last = revisions[0]!.revision_id;
      const winner = last === dx.body.revisionId ? x : y;
      current = winner;
      expect([dx.body.revisionId, dy.body.revisionId]).toContain(last);
      const project = queryDatabase<{ revision_id: string }>(
        databaseFiles(server.dataDir).metadata,
        "SELECT revision_id FROM projects WHERE slug = ?",
        p.slug,
      )[0]!;
      expect(project.revision_id).toBe(last);
      await expectServes(host, winner, `round ${round} production`);
      await expectServes(new URL(dx.body.revisionUrl).hostname, x, `round ${round} revision X`);
      await expectServes(new URL(dy.body.revisionUrl).hostname, y, `round ${round} revision Y`);
      // Completing the loser again is idempotent and does not take production back.
      const loser = last === dx.body.revisionId ? { d: py, j: jy } : { d: px, j: jx };
      const again = await completeDeploy(server.urls.api, p, loser.d.prepared.deployId, loser.j);
      expect(again.status).toBe(200);
      await expectServes(host, winner, `round ${round} production after a repeated completion`);
    }
    expectStoresAgree();
  });

  it("concurrency: racing claims of one hostname: exactly one project wins, the others get 409", async () => {
    const projects = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createTestProject(server.urls.api, `claim-${i}`)),
    );
    await Promise.all(
      projects.map((p, i) =>
        deployFiles(server.urls.api, p, { "/index.html": Buffer.from(`claimant ${i}`) }),
      ),
    );
    for (const [round, hostname] of [
      "race.example.com",
      "race-vanity.localhost",
      "www.race.example.org",
    ].entries()) {
      const answers = await Promise.all(
        projects.map((p) =>
          api(server.urls.api, "POST", `/projects/${p.slug}/domains`, {
            token: p.token,
            body: { ...identity(p), domain: round === 1 ? hostname.toUpperCase() : hostname },
          }),
        ),
      );
      const winners = answers.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
      expect(winners, hostname).toHaveLength(1);
      for (const answer of answers.filter((x) => x.status !== 200)) {
        expect(answer.status, hostname).toBe(409);
        expect(answer.body.error.code).toBe("DOMAIN_TAKEN");
      }
      const winner = winners[0]!;
      const served = await edgeGet(server.urls.edge, hostname, "/");
      expect(served.body.toString(), hostname).toBe(`claimant ${winner}`);
      const hosts = queryDatabase(
        databaseFiles(server.dataDir).platform,
        "SELECT project_slug FROM site_hosts WHERE hostname = ?",
        hostname,
      );
      expect(hosts).toEqual([{ project_slug: projects[winner]!.slug }]);
      // The winner lets go; the name is free for the next round's race.
      const reset = await api(server.urls.api, "DELETE", `/projects/${projects[winner]!.slug}/domains`, {
        token: projects[winner]!.token,
        body: identity(projects[winner]!),
      });
      expect(reset.status).toBe(200);
      expect((await edgeGet(server.urls.edge, hostname, "/")).status).toBe(404);
    }
    expectStoresAgree();
  });

  it("concurrency: garbage collection during uploads never deletes what a session or revision needs", async () => {
    let collecting = true;
    let collections = 0;
    const collector = (async () => {
      while (collecting) {
        server.platform.collectGarbage();
        collections++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      const projects = await Promise.all(
        Array.from({ length: 12 }, (_, i) => createTestProject(server.urls.api, `gc-${i}`)),
      );
      const latest = new Map<TestProject, Files>();
      // Three waves: deploys, redeploys that drop content, and deletions of every third project,
      // all while the collector runs between every turn of the event loop.
      for (let wave = 0; wave < 3; wave++) {
        await Promise.all(
          projects.map(async (p, i) => {
            if (wave === 2 && i % 3 === 0) {
              const deleted = await api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
                token: p.token,
                body: identity(p),
              });
              expect(deleted.status).toBe(200);
              latest.delete(p);
              return;
            }
            const files = siteFiles(`gc ${i} wave ${wave}`, shared, wave === 1 ? 150_000 : 20_000);
            // Prepared, then uploaded a turn later, then completed a turn later: GC runs between.
            const prepared = await prepareFiles(server.urls.api, p, files);
            await new Promise((resolve) => setImmediate(resolve));
            let jwt: string = prepared.prepared.uploadJwt;
            for (const bucket of prepared.prepared.buckets as string[][]) {
              const parts = bucket.map((hash) => ({ hash, bytes: prepared.byHash.get(hash)! }));
              const response = await uploadBucket(
                prepared.prepared.urls.upload,
                prepared.prepared.uploadJwt,
                parts,
              );
              expect([201, 202], JSON.stringify(response.body)).toContain(response.status);
              if (response.status === 201) jwt = response.body.result.jwt;
            }
            await new Promise((resolve) => setImmediate(resolve));
            const done = await completeDeploy(server.urls.api, p, prepared.prepared.deployId, jwt);
            expect(done.status, JSON.stringify(done.body)).toBe(200);
            latest.set(p, files);
          }),
        );
      }
      for (const [p, files] of latest) await expectServes(`${p.slug}.localhost`, files, "after GC");
      expect(collections).toBeGreaterThan(10);
      expectStoresAgree();
    } finally {
      collecting = false;
      await collector;
    }
  });

  it("concurrency: a prepare, deploy or domain change racing the project's deletion never fails with 5xx", async () => {
    const statuses: Record<string, number> = {};
    for (let round = 0; round < 45; round++) {
      const kind = ["prepare", "deploy", "domain"][round % 3]!;
      const p = await createTestProject(server.urls.api, `doomed-${round}`);
      const files: Files = {};
      for (let i = 0; i < 50; i++)
        files[`/f${i}.txt`] = Buffer.from(`doomed ${round} ${i} ${randomBytes(4).toString("hex")}`);
      const ready = kind === "deploy" ? await prepareFiles(server.urls.api, p, files) : undefined;
      let jwt: string | undefined;
      if (ready) {
        for (const bucket of ready.prepared.buckets as string[][]) {
          const parts = bucket.map((hash) => ({ hash, bytes: ready.byHash.get(hash)! }));
          const uploaded = await uploadBucket(ready.prepared.urls.upload, ready.prepared.uploadJwt, parts);
          if (uploaded.status === 201) jwt = uploaded.body.result.jwt;
        }
      }
      const { manifest } = await manifestOf(p.slug, files);
      const racer =
        kind === "prepare"
          ? api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
              token: p.token,
              body: { ...identity(p), manifest },
            })
          : kind === "deploy"
            ? completeDeploy(server.urls.api, p, ready!.prepared.deployId, jwt!)
            : api(server.urls.api, "POST", `/projects/${p.slug}/domains`, {
                token: p.token,
                body: { ...identity(p), domain: `doomed-${round}.example.com` },
              });
      // The deletion starts a little later each round, to land at every step of the racer.
      await new Promise((resolve) => setTimeout(resolve, (round % 10) / 2));
      const deleting = api(server.urls.api, "DELETE", `/projects/${p.slug}`, {
        token: p.token,
        body: identity(p),
      });
      const [raced, deleted] = await Promise.all([racer, deleting]);
      statuses[`${kind} ${raced.status}`] = (statuses[`${kind} ${raced.status}`] ?? 0) + 1;
      expect([200, 401, 404], `round ${round} (${kind}): ${JSON.stringify(raced.body)}`).toContain(
        raced.status,
      );
      expect(deleted.status).toBe(200);
      // Whatever won, nothing of the project is left behind on the platform.
      const platform = databaseFiles(server.dataDir).platform;
      for (const table of [
        "upload_sessions",
        "sites",
        "revisions",
        "manifests",
        "manifest_files",
        "site_hosts",
      ]) {
        expect(
          queryDatabase(platform, `SELECT * FROM ${table} WHERE project_slug = ?`, p.slug),
          `${table} of ${p.slug}`,
        ).toEqual([]);
      }
      expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).status).toBe(404);
    }
    expectStoresAgree();
    console.log(`racing the deletion: ${JSON.stringify(statuses)}`);
  });
});
