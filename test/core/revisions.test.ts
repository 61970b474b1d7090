import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidRequestError, RevisionNotFoundError } from "../../src/core/errors.js";
import type { Store } from "../../src/core/ports/store.js";
import { promoteRevision } from "../../src/core/operations/index.js";
import type { ProjectCredentials } from "../../src/core/operations/authorize.js";
import { createTestProject, deployFiles } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";
import { rejection } from "../support/core-flow.js";

describe("promoteRevision", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  /** A project with two deploys: the credentials and both revision ids, oldest first. */
  async function twoDeploys(label: string): Promise<{ p: ProjectCredentials; revisions: string[] }> {
    const t = await createTestProject(server.urls.api, label);
    const first = await deployFiles(server.urls.api, t, { "/index.html": `${label} one` });
    const second = await deployFiles(server.urls.api, t, { "/index.html": `${label} two` });
    const p = {
      projectSlug: t.slug,
      apiToken: t.token,
      projectHash: t.projectHash,
      anonFingerprint: t.anonFingerprint,
    };
    return { p, revisions: [first.deployed.revisionId, second.deployed.revisionId] };
  }

  it("promoteRevision: a malformed revisionId is INVALID_REQUEST saying what one looks like", async () => {
    const { p } = await twoDeploys("promote-malformed");
    expect(await rejection(promoteRevision(server.services, { ...p, revisionId: "NOT-AN-ID" }))).toEqual({
      type: InvalidRequestError.name,
      message: "revisionId: 10 characters of a-z and 0-9",
    });
  });

  it("promoteRevision: a revision the project never had is REVISION_NOT_FOUND naming it and the project", async () => {
    const { p } = await twoDeploys("promote-unknown");
    expect(await rejection(promoteRevision(server.services, { ...p, revisionId: "abcdefghij" }))).toEqual({
      type: RevisionNotFoundError.name,
      message: `revision abcdefghij not found for project ${p.projectSlug}`,
    });
  });

  it("promoteRevision: a revision pruned between the listing and the store's write is REVISION_NOT_FOUND, production unchanged", async () => {
    const { p, revisions } = await twoDeploys("promote-pruned");
    const [older, newer] = revisions as [string, string];
    const real = server.services.store;
    // Retention takes the revision away right after the promote has seen it listed.
    const store: Store = Object.create(real, {
      listRevisions: {
        value: async (slug: string) => {
          const listed = await real.listRevisions(slug);
          await real.deleteRevisions(slug, [older]);
          return listed;
        },
      },
    });
    const outcome = await rejection(
      promoteRevision({ ...server.services, store }, { ...p, revisionId: older }),
    );
    expect(outcome).toEqual({
      type: RevisionNotFoundError.name,
      message: `revision ${older} not found for project ${p.projectSlug}`,
    });
    expect((await real.getProject(p.projectSlug))?.revisionId).toBe(newer);
  });
});
