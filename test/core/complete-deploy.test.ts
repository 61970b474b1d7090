import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeployExpiredError, DeployNotFoundError } from "../../src/core/errors.js";
import { completeDeploy, prepareDeploy } from "../../src/core/operations/index.js";
import { manifestOf } from "../support/deploy-flow.js";
import { startTestServer } from "../support/server.js";
import { snapshotStore } from "../support/store-snapshot.js";
import { createCoreProject, rejection } from "../support/core-flow.js";

describe("completeDeploy", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  const project = (label: string) => createCoreProject(server.services, label);

  it("completeDeploy: an unknown deploy is DEPLOY_NOT_FOUND naming the deploy and the project", async () => {
    const p = await project("unknown-deploy");
    const outcome = await rejection(
      completeDeploy(server.services, { ...p, deployId: "AAAAAAAAAAAAAAAAAAAAAA", completionJwt: "x" }),
    );
    expect(outcome).toEqual({
      type: DeployNotFoundError.name,
      message: `deploy AAAAAAAAAAAAAAAAAAAAAA not found for project ${p.projectSlug}`,
    });
  });

  it("completeDeploy: a preparation is DEPLOY_EXPIRED from the very millisecond of its expiry, saying to prepare again", async () => {
    const p = await project("expiring-deploy");
    const { manifest } = await manifestOf(p.projectSlug, { "/a.txt": "a" });
    const prepared = await prepareDeploy(server.services, { ...p, manifest });
    if ("unchanged" in prepared) throw new Error("a first deploy is never unchanged");
    const complete = () =>
      completeDeploy(server.services, {
        ...p,
        deployId: prepared.deployId,
        completionJwt: prepared.uploadJwt,
      });
    server.clock.freeze();
    server.clock.advanceTo(Date.parse(prepared.expiresAt) - 1);
    // One millisecond before: the preparation stands, and the token is what is wrong (nothing uploaded).
    expect((await rejection(complete())).type).not.toBe(DeployExpiredError.name);
    server.clock.advanceTo(Date.parse(prepared.expiresAt));
    const before = snapshotStore(server.dataDir);
    expect(await rejection(complete())).toEqual({
      type: DeployExpiredError.name,
      message: "deploy preparation expired; prepare the deploy again",
    });
    expect(snapshotStore(server.dataDir)).toEqual(before);
  });
});
