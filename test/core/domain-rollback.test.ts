import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatabaseUnavailableError, DomainTakenError, UploadPlatformError } from "../../src/core/errors.js";
import type { Platform } from "../../src/core/ports/platform.js";
import type { Store } from "../../src/core/ports/store.js";
import { assignDomain, resetDomain } from "../../src/core/operations/index.js";
import type { Services } from "../../src/core/operations/services.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";
import { createCoreProject } from "../support/core-flow.js";

/** What `run` rejects with: its class, code and message. */
async function rejection(run: Promise<unknown>): Promise<{ type: string; code: string; message: string }> {
  const error = (await run.then(
    () => new Error("expected a rejection, it resolved"),
    (e: unknown) => e,
  )) as Error & { code: string };
  return { type: error.constructor.name, code: error.code, message: error.message };
}

describe("domain changes that fail half-way", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const project = (label: string) => createCoreProject(server.services, label);

  /** The server's services with a platform whose site updates fail (its database gone, say). */
  function failingPlatform(): Services {
    const platform: Platform = Object.create(server.platform, {
      updateSite: {
        value: async () => {
          throw new Error("platform database is gone");
        },
      },
    });
    return { ...server.services, platform };
  }

  it("assignDomain: the platform failing after the store changed puts the old name back with its pending proof, no release kept", async () => {
    const p = await project("rollback-assign");
    // An external name, pending: DNS cannot be asked here, and that is in its state.
    const first = await assignDomain(server.services, { ...p, domain: "rollback-old.example.com" });
    expect(first.domain.status).toBe("pending");
    server.clock.advance(60);
    const before = snapshotStore(server.dataDir);
    const outcome = await rejection(
      assignDomain(failingPlatform(), { ...p, domain: "rollback-new.localhost" }),
    );
    expect(outcome).toMatchObject({ type: UploadPlatformError.name, code: "UPLOAD_PLATFORM_ERROR" });
    expect(snapshotStore(server.dataDir)).toEqual(before);
    // The old name was not quarantined by the failed change: another project may still claim it
    // once this one gives it up, and this one keeps it.
    expect(await server.services.store.getHostnameRelease("rollback-old.example.com")).toBeUndefined();
  });

  it("assignDomain: the platform failing on a first assignment leaves the project on its generated name", async () => {
    const p = await project("rollback-first");
    const before = snapshotStore(server.dataDir);
    const outcome = await rejection(
      assignDomain(failingPlatform(), { ...p, domain: "rollback-first.localhost" }),
    );
    expect(outcome.code).toBe("UPLOAD_PLATFORM_ERROR");
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });

  it("resetDomain: the platform failing puts the custom name back, active as it was", async () => {
    const p = await project("rollback-reset");
    await assignDomain(server.services, { ...p, domain: "rollback-reset.localhost" });
    server.clock.advance(60);
    const before = snapshotStore(server.dataDir);
    const outcome = await rejection(resetDomain(failingPlatform(), p));
    expect(outcome.code).toBe("UPLOAD_PLATFORM_ERROR");
    expect(snapshotStore(server.dataDir)).toEqual(before);
    expect((await server.services.store.getProject(p.projectSlug))?.customHostname).toBe(
      "rollback-reset.localhost",
    );
  });

  /** The server's services with a store on which `act` runs right after the question `method` was answered. */
  function actingAfter(
    method: "getProjectByHostname" | "getHostnameRelease",
    act: () => Promise<unknown>,
  ): Services {
    const real = server.services.store;
    const original = real[method].bind(real) as (hostname: string) => Promise<unknown>;
    const store: Store = Object.create(real, {
      [method]: {
        value: async (hostname: string) => {
          const answer = await original(hostname);
          await act();
          return answer;
        },
      },
    });
    return { ...server.services, store };
  }

  it("assignDomain: a name another project takes between the check and the write is 409 DOMAIN_TAKEN, nothing changed", async () => {
    const p = await project("race-held-p");
    const q = await project("race-held-q");
    const services = actingAfter("getProjectByHostname", () =>
      server.services.store.setCustomHostname(q.projectSlug, "race-held.localhost"),
    );
    const before = snapshotStore(server.dataDir);
    const outcome = await rejection(assignDomain(services, { ...p, domain: "race-held.localhost" }));
    expect(outcome).toEqual({
      type: DomainTakenError.name,
      code: "DOMAIN_TAKEN",
      message: 'domain "race-held.localhost" is held by another project',
    });
    const after = snapshotStore(server.dataDir);
    expect((await server.services.store.getProject(p.projectSlug))?.customHostname).toBeNull();
    expect(after.platform).toEqual(before.platform);
  });

  it("assignDomain: a name another project releases between the check and the write is 409 DOMAIN_TAKEN saying from when", async () => {
    const p = await project("race-released-p");
    const q = await project("race-released-q");
    const withheldUntil = new Date(server.clock.now() + 86_400_000).toISOString();
    const release = {
      hostname: "race-released.example.com",
      projectSlug: q.projectSlug,
      releasedAt: new Date(server.clock.now()).toISOString(),
      withheldUntil,
    };
    const services = actingAfter("getHostnameRelease", () =>
      server.services.store.deleteProject(q.projectSlug, [release]),
    );
    const outcome = await rejection(assignDomain(services, { ...p, domain: "race-released.example.com" }));
    expect(outcome).toEqual({
      type: DomainTakenError.name,
      code: "DOMAIN_TAKEN",
      message: `domain "race-released.example.com" was released by another project and can be claimed from ${withheldUntil}`,
    });
    expect((await server.services.store.getProject(p.projectSlug))?.customHostname).toBeNull();
  });

  it("assignDomain: the store going away at the write is DATABASE_UNAVAILABLE, nothing changed", async () => {
    const p = await project("store-gone-at-write");
    const real = server.services.store;
    const store: Store = Object.create(real, {
      setCustomHostname: {
        value: async () => {
          throw new DatabaseUnavailableError({ cause: new Error("connection terminated") });
        },
      },
    });
    const before = snapshotStore(server.dataDir);
    const outcome = await rejection(
      assignDomain({ ...server.services, store }, { ...p, domain: "store-gone.localhost" }),
    );
    expect(outcome).toMatchObject({ type: DatabaseUnavailableError.name, code: "DATABASE_UNAVAILABLE" });
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });
});
