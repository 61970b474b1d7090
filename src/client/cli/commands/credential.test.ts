import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { decodeCredential, encodeCredential } from "../../local/credential.js";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { publicProject, SLUG } from "../test-fixtures.js";
import { credentialEnv, holdProject, locksLeft, type Scratch, useScratchRoot } from "./test-project.js";

const api = useTestApi();
const root = useScratchRoot("credential-command-");
let scratch: Scratch;
beforeEach(async () => {
  scratch = await root.scratch(api.url);
  api.on(`POST /projects/${SLUG}/state`, {
    status: 200,
    body: { project: publicProject(), revisions: [] },
  });
});

/** Runs `deploy credential` in the site folder against the stand-in. */
function credential(extra: string[] = [], env: Record<string, string> = {}) {
  return runCliIn(scratch.site, ["credential", ...extra], {
    ...scratch.env,
    ...env,
  });
}

describe("credential", () => {
  it("credential: asks the server that the project answers to its token, then prints the credential on stdout", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await credential();
    expect(run.code).toBe(0);
    expect(api.received.map((request) => [request.method, request.path])).toEqual([
      ["POST", `/projects/${SLUG}/state`],
    ]);
    expect(api.received[0]?.headers.authorization).toBe(`Bearer ${held.project.apiToken}`);
    expect(api.received[0]?.body).toEqual(held.identity);
    expect(run.stdout).toBe(
      `${encodeCredential({ apiUrl: api.url, projectSlug: SLUG, apiToken: held.project.apiToken, ...held.identity })}\n`,
    );
  });

  it("credential: says on stderr that the credential is a secret and how CI uses it", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await credential();
    expect(run.stderr).toBe(
      `The credential of ${SLUG}: keep it secret, it lets whoever holds it deploy to and delete the project.\n` +
        "In CI, store it as a secret and set DEPLOY_CREDENTIAL to it; then `deploy <dir>` deploys there.\n",
    );
  });

  it("credential: a moved folder's credential carries the projectHash its project was created with", async () => {
    const created = join(scratch.site, "..", "old-site");
    await mkdir(created);
    const held = await holdProject(scratch, api.url, SLUG, { dir: created });
    // The folder was moved: its project file now names the site folder.
    await holdProject(scratch, api.url, SLUG, { linked: true, projectHash: held.identity.projectHash });
    const run = await credential();
    expect(run.code).toBe(0);
    expect(decodeCredential(run.stdout).projectHash).toBe(held.identity.projectHash);
    expect(api.received[0]?.body).toEqual(held.identity);
  });

  it("credential: --json prints { credential, projectSlug } and nothing on stderr", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await credential(["--json"]);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    const printed = JSON.parse(run.stdout) as { credential: string; projectSlug: string };
    expect(printed).toEqual({ credential: printed.credential, projectSlug: SLUG });
    expect(decodeCredential(printed.credential)).toEqual({
      apiUrl: api.url,
      projectSlug: SLUG,
      apiToken: held.project.apiToken,
      ...held.identity,
    });
  });

  it("credential: under DEPLOY_CREDENTIAL it refuses CREDENTIAL_IN_USE, asks nothing and never prints the secret", async () => {
    const secret = credentialEnv(api.url, SLUG, "sdp_secret");
    const run = await credential([], secret);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "Error: this run acts with DEPLOY_CREDENTIAL, which is never printed back\n" +
        "Run `deploy credential` where the project was created, without DEPLOY_CREDENTIAL.\n",
    });
    expect(api.received).toEqual([]);
    const json = await credential(["--json"], secret);
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        code: "CREDENTIAL_IN_USE",
        message: "this run acts with DEPLOY_CREDENTIAL, which is never printed back",
      },
    });
    expect(json.stdout).not.toContain("sdp_secret");
  });

  it("credential: a folder without a project is NO_PROJECT, and nothing is asked", async () => {
    const run = await credential(["--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("NO_PROJECT");
    expect(api.received).toEqual([]);
  });

  it("credential: a project the server no longer knows prints its error and no credential", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    api.on(`POST /projects/${SLUG}/state`, apiError(404, "PROJECT_NOT_FOUND", "no such project"));
    const run = await credential();
    expect([run.code, run.stdout]).toEqual([1, ""]);
    expect(run.stderr).toBe(
      "Error: could not read the project: the project no longer exists on the server\n" +
        "Run `deploy` in this folder to create a new project.\n",
    );
    // The token is kept: the command only reads.
    expect(await scratch.saved.findBySlug(api.url, SLUG)).toBeDefined();
  });

  it("credential: takes no lock on the folder, so none is left behind", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    expect((await credential()).code).toBe(0);
    expect(await locksLeft(scratch)).toEqual([]);
  });
});
