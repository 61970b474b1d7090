import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestProject, deployFiles, identity, manifestOf } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { uploadBucket } from "../support/multipart.js";
import { startTestServer } from "../support/server.js";

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** A promise with its resolve at hand. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * Barriers inside a running server, without changing what it does: the platform calls of a deploy
 * (`publishRevision`) and of a domain change (`updateSite`) are logged and can be held, and each
 * arrival at a project's lock is counted, so a test knows when a request waits there.
 */
function instrument(server: TestServer) {
  const platform = server.platform as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const locks = server.services.locks;
  const originals = {
    publishRevision: platform.publishRevision!,
    updateSite: platform.updateSite!,
    run: locks.run,
  };
  const log: string[] = [];
  const held = new Map<
    string,
    { entered: ReturnType<typeof deferred>; release: ReturnType<typeof deferred> }
  >();
  let arrivals = 0;
  let arrived = deferred();
  for (const name of ["publishRevision", "updateSite"] as const) {
    platform[name] = async (...args: unknown[]) => {
      log.push(`${name} start`);
      const gate = held.get(name);
      if (gate) {
        gate.entered.resolve();
        await gate.release.promise;
      }
      try {
        return await originals[name].apply(server.platform, args);
      } finally {
        log.push(`${name} end`);
      }
    };
  }
  locks.run = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    arrivals++;
    arrived.resolve();
    return originals.run.call(locks, key, work) as Promise<T>;
  };
  return {
    log,
    /** Holds the next call of `name` until released; resolves `entered` once it is inside. */
    hold(name: "publishRevision" | "updateSite") {
      const gate = { entered: deferred(), release: deferred() };
      held.set(name, gate);
      return gate;
    },
    /** Resolves once `count` requests in all have arrived at a project lock. */
    async lockArrivals(count: number): Promise<void> {
      while (arrivals < count) {
        arrived = deferred();
        await arrived.promise;
      }
    },
    /** Forgets the log and the counts, and lets go of any call still held (after a failure). */
    reset() {
      for (const gate of held.values()) gate.release.resolve();
      log.length = 0;
      held.clear();
      arrivals = 0;
    },
    restore() {
      platform.publishRevision = originals.publishRevision;
      platform.updateSite = originals.updateSite;
      locks.run = originals.run;
    },
  };
}

describe("requests racing on one project", () => {
  let server: TestServer;
  let probe: ReturnType<typeof instrument>;
  beforeAll(async () => {
    server = await startTestServer();
    probe = instrument(server);
  });
  afterEach(() => probe.reset());
  afterAll(async () => {
    probe.restore();
    await server.stop();
  });

  /** A project with a first deploy, and a second deploy uploaded and ready to complete. */
  async function readyToDeploy(label: string) {
    const p = await createTestProject(server.urls.api, label);
    await deployFiles(server.urls.api, p, { "/index.html": "v1" });
    const { manifest, byHash } = await manifestOf(p.slug, { "/index.html": `v2 ${label}` });
    const prepared = (
      await api(server.urls.api, "POST", `/projects/${p.slug}/prepare`, {
        token: p.token,
        body: { ...identity(p), manifest },
      })
    ).body;
    const [hash] = prepared.buckets[0];
    const uploaded = await uploadBucket(prepared.urls.upload, prepared.uploadJwt, [
      { hash, bytes: byHash.get(hash)! },
    ]);
    expect(uploaded.status).toBe(201);
    const deploy = () =>
      api(server.urls.api, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: { ...identity(p), deployId: prepared.deployId, completionJwt: uploaded.body.result.jwt },
      });
    const assign = (domain: string) =>
      api(server.urls.api, "POST", `/projects/${p.slug}/domains`, {
        token: p.token,
        body: { ...identity(p), domain },
      });
    return { p, deploy, assign, content: `v2 ${label}` };
  }

  /**
   * Runs a deploy and a domain change of one project at once, in a forced order: the test holds the
   * project's lock while both requests are authorized and queue at it (`first` ahead), so each was
   * authorized on the project as it was before the other. Once let go, `first` is held inside its
   * platform call while the event loop turns: the other must not get into the platform meanwhile.
   */
  async function race(first: "deploy" | "domain", round: number) {
    const { p, deploy, assign, content } = await readyToDeploy(`race-${first}-${round}`);
    const domain = `race-${first}-${round}.example.com`;
    probe.reset();
    const gate = probe.hold(first === "deploy" ? "publishRevision" : "updateSite");
    const lockHeld = deferred();
    const holding = server.services.locks.run(p.slug, () => lockHeld.promise);
    const leading = first === "deploy" ? deploy() : assign(domain);
    await probe.lockArrivals(2);
    const trailing = first === "deploy" ? assign(domain) : deploy();
    await probe.lockArrivals(3);
    lockHeld.resolve();
    await holding;
    await gate.entered.promise;
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(probe.log, "the other request got into the platform while the lock was held").toEqual([
      `${first === "deploy" ? "publishRevision" : "updateSite"} start`,
    ]);
    gate.release.resolve();
    const [lead, trail] = await Promise.all([leading, trailing]);
    const [deployed, assigned] = first === "deploy" ? [lead, trail] : [trail, lead];
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(200);
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    return { p, domain, content, deployed, assigned, log: [...probe.log] };
  }

  for (const first of ["deploy", "domain"] as const) {
    it(`deploy and domain change at once (${first} first): the edge answers where the API says the project is`, async () => {
      for (let round = 0; round < 3; round++) {
        const { p, domain, content, deployed, assigned, log } = await race(first, round);
        // The order forced is the order that happened, one platform call after the other.
        expect(log).toEqual(
          first === "deploy"
            ? ["publishRevision start", "publishRevision end", "updateSite start", "updateSite end"]
            : ["updateSite start", "updateSite end", "publishRevision start", "publishRevision end"],
        );
        // The later answer holds both changes, and the edge agrees with it.
        const last = first === "deploy" ? assigned : deployed;
        expect(last.body.project.hostname).toBe(domain);
        expect(last.body.project.revisionId).toBe(deployed.body.revisionId);
        const onDomain = await edgeGet(server.urls.edge, domain, "/");
        expect(onDomain.status).toBe(200);
        expect(onDomain.body.toString()).toBe(content);
        // The generated hostname serves the same revision beside the domain.
        expect((await edgeGet(server.urls.edge, `${p.slug}.localhost`, "/")).body.toString()).toBe(content);
      }
    });
  }
});
