import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, identity, manifestOf, type TestProject } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { createOwnCluster, type OwnCluster } from "../support/pg-cluster.js";
import { spawnServer, type ServerProcess } from "../support/server-process.js";
import { tempDir } from "../support/server.js";

type Attempt = { ok: true; revisionId: string; body: string } | { ok: false; status: number; code: unknown };

/** One deploy of a one-file site, every failure kept as what the service answered. */
async function tryDeploy(server: ServerProcess, p: TestProject, n: number): Promise<Attempt> {
  const body = `<h1>deploy ${n}</h1>`;
  const fail = (status: number, json: any): Attempt => ({
    ok: false,
    status,
    code: json?.error?.code ?? json?.errors?.[0]?.code,
  });
  try {
    const { manifest, byHash } = await manifestOf(p.slug, { "/index.html": body });
    const prepared = await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
      token: p.token,
      body: { ...identity(p), manifest },
    });
    if (prepared.status !== 200) return fail(prepared.status, prepared.body);
    const [hash] = prepared.body.buckets[0] as string[];
    const uploaded = await uploadBucket(prepared.body.urls.upload, prepared.body.uploadJwt, [
      { hash: hash!, bytes: byHash.get(hash!)! },
    ]);
    if (uploaded.status !== 201) return fail(uploaded.status, uploaded.body);
    const deployed = await api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
      token: p.token,
      body: { ...identity(p), deployId: prepared.body.deployId, completionJwt: uploaded.body.result.jwt },
    });
    if (deployed.status !== 200) return fail(deployed.status, deployed.body);
    return { ok: true, revisionId: deployed.body.revisionId, body };
  } catch (error) {
    // A body that is not JSON, or a connection cut: the service broke its promise.
    return { ok: false, status: 0, code: String(error) };
  }
}

describe("PostgreSQL restarted under load", async () => {
  const cluster: OwnCluster | undefined = await createOwnCluster("deploy_restart_test");
  if (!cluster && process.env.CI) throw new Error("Debian's pg_createcluster is needed under CI");
  const dir = tempDir();
  let server: ServerProcess;

  beforeAll(async () => {
    server = await spawnServer(dir.path, {
      DATABASE_URL: cluster!.url,
      // The subject is recovery: attempts every 50 ms through a restart of several seconds would
      // otherwise meet the prepare limits (60 a minute per project) and read as never recovering.
      CREATE_LIMIT_PER_ADDRESS: "1000",
      PREPARE_LIMIT_PER_PROJECT: "100000",
      PREPARE_LIMIT_PER_ADDRESS: "100000",
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    cluster?.drop();
    dir.cleanup();
  });

  it.skipIf(!cluster)(
    "pg_ctlcluster restart mid-load: failures are 503 JSON with a code, the process recovers, no acknowledged publish is lost",
    async () => {
      const p = await createTestProject(server.urls.api, "restart");
      const attempts: Attempt[] = [];
      let restarted: Promise<void> | undefined;
      let restartDone = false;
      let acknowledgedAfter = 0;
      for (let n = 0; acknowledgedAfter < 3; n++) {
        expect(n, `the service never recovered; last: ${JSON.stringify(attempts.slice(-2))}`).toBeLessThan(
          400,
        );
        const attempt = await tryDeploy(server, p, n);
        attempts.push(attempt);
        if (restartDone && attempt.ok) acknowledgedAfter++;
        // Deploys go on while PostgreSQL stops and starts again.
        if (!restarted && attempts.filter((a) => a.ok).length === 3)
          restarted = cluster!.restart().then(() => void (restartDone = true));
        if (!attempt.ok) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await restarted;
      expect(
        attempts.some((a) => !a.ok),
        "no deploy met the restart",
      ).toBe(true);
      expect(server.child.exitCode).toBeNull();
      for (const failed of attempts.filter((a): a is Extract<Attempt, { ok: false }> => !a.ok)) {
        // 503 with the service's code: the API's { error: { code } }, the upload service's Cloudflare envelope.
        expect(failed.status, JSON.stringify(failed)).toBe(503);
        expect(["string", "number"], JSON.stringify(failed)).toContain(typeof failed.code);
      }
      const acknowledged = attempts.filter((a): a is Extract<Attempt, { ok: true }> => a.ok);
      for (const { revisionId, body } of acknowledged) {
        const served = await edgeGet(server.urls.edge, `${revisionId}--${p.slug}.localhost`, "/");
        expect(served.body.toString(), revisionId).toBe(body);
      }
      const production = await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/");
      expect(production.body.toString()).toBe(acknowledged.at(-1)!.body);
    },
    240_000,
  );
});
