import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProjectNotFoundError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/ids.js";
import type { ProjectRecord } from "../../src/core/ports/store.js";
import { createProject } from "../../src/core/operations/index.js";
import { removeProject, withProjectLock } from "../../src/core/operations/project-lock.js";
import { hex64 } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";
import { rejection } from "../support/core-flow.js";

describe("project lock", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  /** A new project as `authorize` would have returned it. */
  async function authorized(label: string): Promise<ProjectRecord> {
    const { project } = await createProject(server.services, {
      projectHash: hex64(`${label}-hash`),
      anonFingerprint: hex64(`${label}-fp`),
    });
    return (await server.services.store.getProject(project.projectSlug))!;
  }

  it("withProjectLock: a project deleted after its authorization answers 404 naming it, and the work never runs", async () => {
    const project = await authorized("deleted-meanwhile");
    await server.services.store.deleteProject(project.slug);
    let ran = false;
    const outcome = await rejection(
      withProjectLock(server.services, project, async () => {
        ran = true;
      }),
    );
    expect(outcome).toEqual({
      type: ProjectNotFoundError.name,
      message: `project ${project.slug} not found`,
    });
    expect(ran).toBe(false);
  });

  it("withProjectLock: a slug deleted and taken again by another project answers 404, and the work never runs", async () => {
    const project = await authorized("slug-reused");
    await server.services.store.deleteProject(project.slug);
    const another = { ...project, tokenHash: sha256Hex("another project's token") };
    expect(await server.services.store.createProject(another)).toBe(true);
    let ran = false;
    const outcome = await rejection(
      withProjectLock(server.services, project, async () => {
        ran = true;
      }),
    );
    expect(outcome).toEqual({
      type: ProjectNotFoundError.name,
      message: `project ${project.slug} not found`,
    });
    expect(ran).toBe(false);
    expect(await server.services.store.getProject(project.slug)).toEqual(another);
  });

  it("withProjectLock: the work gets the project as it is under the lock, not the authorized copy", async () => {
    const project = await authorized("changed-meanwhile");
    await server.services.store.setCustomHostname(project.slug, "changed-meanwhile.example.com");
    const seen = await withProjectLock(server.services, project, async (current) => current);
    expect(project.customHostname).toBeNull();
    expect(seen).toEqual(await server.services.store.getProject(project.slug));
    expect(seen.customHostname).toBe("changed-meanwhile.example.com");
  });

  it("removeProject: a project already gone is taken off the platform again without an error", async () => {
    const project = await authorized("already-gone");
    await removeProject(server.services, project.slug);
    expect(await server.services.store.getProject(project.slug)).toBeUndefined();
    await expect(removeProject(server.services, project.slug)).resolves.toBeUndefined();
  });
});
