import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  OwnershipMismatchError,
  ProjectExpiredError,
  ProjectNotFoundError,
  UnauthorizedError,
} from "../../src/core/errors.js";
import { authenticate, authorize, createProject } from "../../src/core/operations/index.js";
import { hex64 } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";
import { rejection } from "../support/core-flow.js";

describe("authorize", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ projectTtlSeconds: 3600 });
  });
  afterAll(() => server.stop());

  const identity = { projectHash: hex64("folder"), anonFingerprint: hex64("install") };

  it("authenticate: a missing token and an unknown one are told apart in the message", async () => {
    expect(await rejection(authenticate(server.services, undefined))).toEqual({
      type: UnauthorizedError.name,
      message: "missing bearer token",
    });
    expect(await rejection(authenticate(server.services, "sdp_unknown"))).toEqual({
      type: UnauthorizedError.name,
      message: "unknown bearer token",
    });
  });

  it("authorize: a known token on a missing project names the project", async () => {
    const { apiToken } = await createProject(server.services, identity);
    expect(
      await rejection(authorize(server.services, { projectSlug: "gone-otter-aaaaa", apiToken, ...identity })),
    ).toEqual({ type: ProjectNotFoundError.name, message: "project gone-otter-aaaaa not found" });
  });

  it("authorize: the identity fields match in any letter case, and another's do not", async () => {
    const { project, apiToken } = await createProject(server.services, identity);
    const upper = {
      projectHash: identity.projectHash.toUpperCase(),
      anonFingerprint: identity.anonFingerprint.toUpperCase(),
    };
    const found = await authorize(server.services, { projectSlug: project.projectSlug, apiToken, ...upper });
    expect(found.slug).toBe(project.projectSlug);
    const other = { ...identity, anonFingerprint: hex64("another install") };
    expect(
      (await rejection(authorize(server.services, { projectSlug: project.projectSlug, apiToken, ...other })))
        .type,
    ).toBe(OwnershipMismatchError.name);
  });

  it("authorize: a project is expired from the very millisecond of its expiry, not one later", async () => {
    const { project, apiToken } = await createProject(server.services, identity);
    const credentials = { projectSlug: project.projectSlug, apiToken, ...identity };
    server.clock.freeze();
    server.clock.advanceTo(Date.parse(project.expiresAt) - 1);
    await expect(authorize(server.services, credentials)).resolves.toMatchObject({
      slug: project.projectSlug,
    });
    server.clock.advanceTo(Date.parse(project.expiresAt));
    expect((await rejection(authorize(server.services, credentials))).type).toBe(ProjectExpiredError.name);
    await expect(authorize(server.services, credentials, { allowExpired: true })).resolves.toMatchObject({
      slug: project.projectSlug,
    });
  });
});
