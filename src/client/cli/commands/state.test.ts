import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { revision, SLUG, stateAnswer } from "../test-fixtures.js";
import { credentialEnv, holdProject, lockSite, TOKEN, useScratchRoot } from "./test-project.js";

const api = useTestApi();
const root = useScratchRoot("state-command-");

beforeEach(() => {
  // Status says how long the project has left: the clock decides it, not the day the test runs.
  vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T10:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

const STATE_PATH = `/projects/${SLUG}/state`;
const STATE = stateAnswer([
  revision("rev0000003", { preview: true, files: 4, bytes: 3072, createdAt: "2026-11-27T12:00:00.000Z" }),
  revision("rev0000002", {
    production: true,
    message: "new front page",
    createdAt: "2026-11-25T08:30:00.000Z",
  }),
  revision("rev0000001", { files: 2, bytes: 1000 }),
]);

/** A linked site folder whose state route answers `answer`. */
async function linked(answer: unknown = STATE) {
  const folder = await root.scratch(api.url);
  const { identity } = await holdProject(folder, api.url, SLUG, { linked: true });
  api.on(`POST ${STATE_PATH}`, { status: 200, body: answer });
  return { folder, identity };
}

describe("status and list", () => {
  it("status: prints the project's state as the API tells it, having asked with the project's token and identity", async () => {
    const { folder, identity } = await linked();
    expect(await runCliIn(folder.site, ["status"], folder.env)).toEqual({
      code: 0,
      stdout: [
        `Project ${SLUG}`,
        `  Production: https://${SLUG}.sites.test/`,
        "  Revision:   rev0000002, deployed 2026-11-25 08:30 UTC (3 files, 2.0 KiB)",
        "  Message:    new front page",
        `  Domain:     ${SLUG}.sites.test (generated)`,
        "  Revisions:  3 kept (`deploy list` shows them)",
        "  Expires:    2026-12-20 09:00 UTC (in 21 days; every deploy moves it)",
        "",
      ].join("\n"),
      stderr: "",
    });
    expect(
      api.received.map(({ method, path, headers, body }) => [method, path, headers.authorization, body]),
    ).toEqual([["POST", STATE_PATH, `Bearer ${TOKEN}`, identity]]);
  });

  it("status: --json prints the state flat, expired judged by the clock", async () => {
    const { folder } = await linked();
    const { code, stdout, stderr } = await runCliIn(folder.site, ["status", "--json"], folder.env);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toBe(
      `${JSON.stringify({
        projectSlug: SLUG,
        productionUrl: `https://${SLUG}.sites.test/`,
        revisionId: "rev0000002",
        revisionUrl: `https://rev0000002--${SLUG}.sites.test/`,
        hostname: `${SLUG}.sites.test`,
        customHostname: null,
        message: "new front page",
        createdAt: "2026-11-01T09:00:00.000Z",
        expiresAt: "2026-12-20T09:00:00.000Z",
        expired: false,
        revisions: 3,
      })}\n`,
    );
    vi.setSystemTime(new Date("2026-12-20T09:00:00.000Z"));
    const expired = await runCliIn(folder.site, ["status", "--json"], folder.env);
    expect(JSON.parse(expired.stdout).expired).toBe(true);
  });

  it("list: prints the kept revisions newest first, production and previews marked", async () => {
    const { folder } = await linked();
    expect(await runCliIn(folder.site, ["list"], folder.env)).toEqual({
      code: 0,
      stdout: [
        "   REVISION    DEPLOYED              FILES     SIZE              MESSAGE",
        "   rev0000003  2026-11-27 12:00 UTC      4  3.0 KiB  preview",
        "*  rev0000002  2026-11-25 08:30 UTC      3  2.0 KiB  production  new front page",
        "   rev0000001  2026-11-20 08:30 UTC      2   1000 B",
        `3 revisions kept for ${SLUG}; * serves https://${SLUG}.sites.test/`,
        "",
      ].join("\n"),
      stderr: "",
    });
    expect(api.received.map(({ path }) => path)).toEqual([STATE_PATH]);
  });

  it("list: --json prints { projectSlug, revisions } with the revisions as the API listed them", async () => {
    const { folder } = await linked();
    const { code, stdout } = await runCliIn(folder.site, ["list", "--json"], folder.env);
    expect(code).toBe(0);
    expect(stdout).toBe(`${JSON.stringify({ projectSlug: SLUG, revisions: STATE.revisions })}\n`);
  });

  it("status: on a terminal the text is coloured, unless NO_COLOR is set", async () => {
    const { folder } = await linked();
    const coloured = await runCliIn(
      folder.site,
      ["status"],
      { ...folder.env, NO_COLOR: "" },
      { isTTY: true },
    );
    expect(coloured.stdout.split("\n")[0]).toBe(`Project \u001b[1m${SLUG}\u001b[22m`);
    const list = await runCliIn(folder.site, ["list"], { ...folder.env, NO_COLOR: "" }, { isTTY: true });
    expect(list.stdout).toContain("\u001b[32m*  rev0000002");
    const plain = await runCliIn(folder.site, ["status"], folder.env, { isTTY: true });
    expect(plain.stdout).not.toContain("\u001b[");
  });

  it("status: an API error exits 1 with its message and hint; --json also prints it on stdout", async () => {
    const { folder } = await linked();
    api.on(`POST ${STATE_PATH}`, apiError(401, "UNAUTHORIZED", "bad token"));
    const { code, stdout, stderr } = await runCliIn(folder.site, ["status", "--json"], folder.env);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.code).toBe("UNAUTHORIZED");
    expect(stderr).toMatch(
      /^Error: could not read the project: .*\nRun `deploy` in this folder to create a new project\.\n$/,
    );
  });

  it("list: a folder without a project is NO_PROJECT, and the API is not asked", async () => {
    const folder = await root.scratch(api.url);
    const { code, stdout, stderr } = await runCliIn(folder.site, ["list", "--json"], folder.env);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.code).toBe("NO_PROJECT");
    expect(stderr.split("\n")[0]).toBe(`Error: no project for ${folder.site} on ${api.url}`);
    expect(api.received).toEqual([]);
  });

  it("status: does not wait for the folder's lock (it changes nothing)", async () => {
    const { folder } = await linked();
    await lockSite(folder);
    const env = { ...folder.env, DEPLOY_LOCK_WAIT_SECONDS: "0" };
    expect((await runCliIn(folder.site, ["status"], env)).code).toBe(0);
    expect((await runCliIn(folder.site, ["list"], env)).code).toBe(0);
  });

  it("status: with DEPLOY_CREDENTIAL, reads the credential's project from any folder, with its token", async () => {
    const folder = await root.scratch(api.url);
    api.on(`POST ${STATE_PATH}`, { status: 200, body: STATE });
    const { code, stdout } = await runCliIn(
      folder.site,
      ["list"],
      credentialEnv(api.url, SLUG, "sdp_credential"),
    );
    expect([code, stdout.split("\n")[0]]).toEqual([0, expect.stringMatching(/^ +REVISION +DEPLOYED/)]);
    expect(api.received.map((request) => request.headers.authorization)).toEqual(["Bearer sdp_credential"]);
  });
});
