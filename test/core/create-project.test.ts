import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InternalError } from "../../src/core/errors.js";
import type { Store } from "../../src/core/ports/store.js";
import { createProject } from "../../src/core/operations/index.js";
import type { Services } from "../../src/core/operations/services.js";
import { hex64 } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";

describe("createProject", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const identity = (label: string) => ({
    projectHash: hex64(`${label}-hash`),
    anonFingerprint: hex64(`${label}-fp`),
  });

  /**
   * The server's services with a store on which the next generated hostnames asked about are
   * really taken just before the question, one per entry of `ways`: "held" makes the name another
   * project's custom hostname (the question sees it), "released" records it as released for ever
   * by a project deleted meanwhile (only the store's insert sees it). Returns the names so taken.
   */
  async function withTakenNames(
    label: string,
    ways: ("held" | "released")[],
  ): Promise<{ services: Services; taken: string[] }> {
    const real = server.services.store;
    const holders: string[] = [];
    for (let i = 0; i < ways.length; i++) {
      holders.push(
        (await createProject(server.services, identity(`${label}-holder-${i}`))).project.projectSlug,
      );
    }
    const taken: string[] = [];
    const store: Store = Object.create(real, {
      getProjectByHostname: {
        value: async (hostname: string) => {
          const i = taken.length;
          const holder = holders[i];
          if (holder !== undefined) {
            if (ways[i] === "held") await real.setCustomHostname(holder, hostname);
            else {
              const release = {
                hostname,
                projectSlug: holder,
                releasedAt: server.services.now().toISOString(),
              };
              await real.deleteProject(holder, [{ ...release, withheldUntil: null }]);
            }
            taken.push(hostname);
          }
          return real.getProjectByHostname(hostname);
        },
      },
    });
    return { services: { ...server.services, store }, taken };
  }

  it("createProject: a generated hostname held or released by another project is skipped for a free one", async () => {
    const { services, taken } = await withTakenNames("skip-taken", ["held", "released"]);
    const { project, apiToken } = await createProject(services, identity("skip-taken"));
    expect(taken).toHaveLength(2);
    expect(taken).not.toContain(project.generatedHostname);
    const stored = await server.services.store.getProject(project.projectSlug);
    expect(stored?.generatedHostname).toBe(project.generatedHostname);
    expect(apiToken).toMatch(/^sdp_/);
  });

  it("createProject: after 8 generated hostnames taken it fails with INTERNAL, nothing created", async () => {
    const { services, taken } = await withTakenNames("all-taken", [
      "held",
      "released",
      "held",
      "released",
      "held",
      "released",
      "held",
      "released",
    ]);
    const before = snapshotStore(server.dataDir);
    const error = await createProject(services, identity("all-taken")).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InternalError);
    expect((error as InternalError).message).toBe("could not find a free project slug");
    expect(taken).toHaveLength(8);
    // The names taken were the test's doing (four holders deleted); no project was created.
    const after = snapshotStore(server.dataDir);
    expect(after.platform).toEqual(before.platform);
    expect(after.metadata["projects"]?.length).toBe(before.metadata["projects"]!.length - 4);
  });
});
