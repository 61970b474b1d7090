import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { beforeEach, describe, expect, it } from "vitest";
import { PROJECT_FILE } from "../../local/project-file.js";
import { apiError, runCliIn, type ScriptedAnswer, useTestApi } from "./test-api.js";
import { SLUG } from "../test-fixtures.js";
import {
  CREDENTIAL_IDENTITY,
  credentialEnv,
  type Held,
  holdProject,
  lockSite,
  locksLeft,
  type Scratch,
  useScratchRoot,
} from "./test-project.js";

const DELETED: ScriptedAnswer = { status: 200, body: { projectSlug: SLUG, deleted: true } };

const api = useTestApi();
const root = useScratchRoot("delete-command-");
let scratch: Scratch;
beforeEach(async () => {
  scratch = await root.scratch(api.url);
  api.on(`DELETE /projects/${SLUG}`, DELETED);
});

/** Runs `deploy delete` in the site folder against the stand-in, off a terminal unless `answer` is typed on one. */
function deleteRun(extra: string[], options: { answer?: string; env?: Record<string, string> } = {}) {
  const env = { ...scratch.env, ...options.env };
  if (options.answer === undefined) return runCliIn(scratch.site, ["delete", ...extra], env);
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  stdin.end(options.answer);
  return runCliIn(scratch.site, ["delete", ...extra], env, { stdin, isTTY: true });
}

/** True while the config folder holds the project's token. */
async function tokenKept(): Promise<boolean> {
  return (await scratch.saved.findBySlug(api.url, SLUG)) !== undefined;
}

/** The project file's text, or undefined once it is gone. */
function projectFile(): Promise<string | undefined> {
  return readFile(join(scratch.site, PROJECT_FILE), "utf8").catch(() => undefined);
}

/** Checks that the one request was the project's DELETE, with its token and identity. */
function expectDeleteSent(held: Held): void {
  expect(api.received.map((request) => [request.method, request.path])).toEqual([
    ["DELETE", `/projects/${SLUG}`],
  ]);
  expect(api.received[0]?.headers.authorization).toBe(`Bearer ${held.project.apiToken}`);
  expect(api.received[0]?.body).toEqual(held.identity);
}

describe("delete", () => {
  it("delete: --yes deletes the project, says its URL no longer answers, and forgets its token and project file", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await deleteRun(["--yes"]);
    expect(run).toEqual({
      code: 0,
      stdout: `Deleted project ${SLUG}; https://${SLUG}.sites.test/ no longer answers\n`,
      stderr: "",
    });
    expectDeleteSent(held);
    expect(await tokenKept()).toBe(false);
    expect(await projectFile()).toBeUndefined();
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("delete: --json prints the server's answer", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await deleteRun(["-y", "--json"]);
    expect(run).toEqual({ code: 0, stdout: `${JSON.stringify(DELETED.body)}\n`, stderr: "" });
  });

  it("delete: a project saved without a production URL is reported without one", async () => {
    const held = await holdProject(scratch, api.url, SLUG);
    await scratch.saved.put(held.identity.projectHash, { ...held.project, productionUrl: "" });
    const run = await deleteRun(["--yes"]);
    expect(run).toEqual({ code: 0, stdout: `Deleted project ${SLUG}\n`, stderr: "" });
    expect(await tokenKept()).toBe(false);
  });

  it("delete: a folder found by its path (no project file) forgets the token and writes no file", async () => {
    const held = await holdProject(scratch, api.url, SLUG);
    expect((await deleteRun(["--yes"])).code).toBe(0);
    expectDeleteSent(held);
    expect(await tokenKept()).toBe(false);
    expect(await projectFile()).toBeUndefined();
  });

  it("delete: off a terminal without --yes it is a usage error that names --yes, and nothing is sent or forgotten", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await deleteRun([]);
    expect(run).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "Error: not on a terminal: confirm the deletion with --yes\nExample: deploy delete --dir ./dist --yes\n",
    });
    expect(api.received).toEqual([]);
    expect(await tokenKept()).toBe(true);
    expect(await projectFile()).toBeDefined();
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("delete: on a terminal it asks with the project and its URL, and deletes on yes", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await deleteRun([], { answer: "y\n" });
    expect(run).toEqual({
      code: 0,
      stdout: `Deleted project ${SLUG}; https://${SLUG}.sites.test/ no longer answers\n`,
      stderr: `Delete project ${SLUG} (https://${SLUG}.sites.test/)? [y/N] `,
    });
    expectDeleteSent(held);
    expect(await tokenKept()).toBe(false);
  });

  it("delete: the question leaves out the URL when none is saved", async () => {
    const held = await holdProject(scratch, api.url, SLUG);
    await scratch.saved.put(held.identity.projectHash, { ...held.project, productionUrl: "" });
    const run = await deleteRun([], { answer: "yes\n" });
    expect(run.stderr).toBe(`Delete project ${SLUG}? [y/N] `);
    expect(run.code).toBe(0);
  });

  it("delete: answering no exits 0, says nothing changed, and sends nothing; --json prints deleted false", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await deleteRun([], { answer: "n\n" });
    expect(run).toEqual({
      code: 0,
      stdout: "",
      stderr: `Delete project ${SLUG} (https://${SLUG}.sites.test/)? [y/N] Deletion cancelled; nothing was changed.\n`,
    });
    const json = await deleteRun(["--json"], { answer: "\n" });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ projectSlug: SLUG, deleted: false });
    expect(api.received).toEqual([]);
    expect(await tokenKept()).toBe(true);
    expect(await projectFile()).toBeDefined();
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("delete: a project the server no longer knows (404, 401) is forgotten locally and reported PROJECT_GONE", async () => {
    for (const gone of [apiError(404, "PROJECT_NOT_FOUND"), apiError(401, "UNAUTHORIZED")]) {
      await holdProject(scratch, api.url, SLUG, { linked: true });
      api.on(`DELETE /projects/${SLUG}`, gone);
      const run = await deleteRun(["--yes", "--json"]);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toEqual({
        error: {
          code: "PROJECT_GONE",
          message: `project ${SLUG} no longer exists on ${api.url}; forgot it locally`,
        },
      });
      expect(await tokenKept()).toBe(false);
      expect(await projectFile()).toBeUndefined();
      expect(await locksLeft(scratch)).toEqual([]);
    }
  });

  it("delete: an expired project, a refused identity or a server failure is reported as it is, and nothing is forgotten", async () => {
    const failures = [
      apiError(410, "PROJECT_EXPIRED", "project expired"),
      apiError(403, "OWNERSHIP_MISMATCH"),
      apiError(500, "INTERNAL"),
    ];
    for (const failure of failures) {
      await holdProject(scratch, api.url, SLUG, { linked: true });
      api.on(`DELETE /projects/${SLUG}`, failure);
      const run = await deleteRun(["--yes", "--json"]);
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).error.code).toBe(
        (failure.body as { error: { code: string } }).error.code,
      );
      expect(await tokenKept()).toBe(true);
      expect(await projectFile()).toBeDefined();
      expect(await locksLeft(scratch)).toEqual([]);
    }
  });

  it("delete: while another run holds the folder's lock it gives up LOCKED and sends nothing", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    await lockSite(scratch);
    const run = await deleteRun(["--yes", "--json"], { env: { DEPLOY_LOCK_WAIT_SECONDS: "0" } });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("LOCKED");
    expect(api.received).toEqual([]);
    expect(await tokenKept()).toBe(true);
  });

  it("delete: under DEPLOY_CREDENTIAL it deletes the credential's project and touches no config folder", async () => {
    // A token this machine holds for the same project stays: the credential is another's copy.
    await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await deleteRun(["--yes"], { env: credentialEnv(api.url, SLUG, "sdp_ci") });
    expect(run).toEqual({ code: 0, stdout: `Deleted project ${SLUG}\n`, stderr: "" });
    expect(api.received[0]?.headers.authorization).toBe("Bearer sdp_ci");
    expect(api.received[0]?.body).toEqual(CREDENTIAL_IDENTITY);
    expect(await tokenKept()).toBe(true);
    expect(await projectFile()).toBeDefined();
  });

  it("delete: under DEPLOY_CREDENTIAL a project already gone is PROJECT_GONE, with nothing local to forget", async () => {
    api.on(`DELETE /projects/${SLUG}`, apiError(404, "PROJECT_NOT_FOUND"));
    const run = await deleteRun(["--yes"], { env: credentialEnv(api.url, SLUG, "sdp_ci") });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: project ${SLUG} no longer exists on ${api.url}; forgot it locally\n`);
  });
});
