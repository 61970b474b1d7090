import { readdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { PromotedRevision, RevisionSummary } from "../../net/api-types.js";
import { apiError, type ReceivedRequest, runCliIn, useTestApi } from "./test-api.js";
import { publicProject, revision, SLUG, stateAnswer } from "../test-fixtures.js";
import {
  credentialEnv,
  holdProject,
  lockSite,
  locksLeft,
  savedProject,
  type Scratch,
  TOKEN,
  useScratchRoot,
} from "./test-project.js";

const api = useTestApi();
const root = useScratchRoot("promote-command-");

const STATE_PATH = `/projects/${SLUG}/state`;
const PROMOTE_PATH = `/projects/${SLUG}/promote`;
const CUSTOM = "https://www.example.org/";

/** The promote route's answer for `revisionId`, production now on the custom domain. */
function promoted(revisionId: string): PromotedRevision {
  return {
    revisionId,
    productionUrl: CUSTOM,
    revisionUrl: `https://${revisionId}--${SLUG}.sites.test/`,
    project: publicProject({ revisionId, customHostname: "www.example.org", productionUrl: CUSTOM }),
  };
}

/**
 * A linked site folder whose state route lists `revisions` (production: the one marked) and whose
 * promote route promotes whatever revision it is sent.
 */
async function linked(revisions: RevisionSummary[]) {
  const folder = await root.scratch(api.url);
  const { identity } = await holdProject(folder, api.url, SLUG, { linked: true });
  const live = revisions.find((kept) => kept.production)?.revisionId ?? null;
  api.on(`POST ${STATE_PATH}`, { status: 200, body: stateAnswer(revisions, { revisionId: live }) });
  api.on(`POST ${PROMOTE_PATH}`, (request) => ({
    status: 200,
    body: promoted((request.body as { revisionId: string }).revisionId),
  }));
  return { folder, identity };
}

/** The revision each promote request asked for. */
const promotedIds = (received: ReceivedRequest[]) =>
  received
    .filter(({ path }) => path === PROMOTE_PATH)
    .map(({ body }) => (body as { revisionId: string }).revisionId);

const saved = async (folder: Scratch) => (await folder.saved.findBySlug(api.url, SLUG))?.project;

const LIVE_ON_2 = [revision("rev0000003", { preview: true }), revision("rev0000002", { production: true })];

describe("promote and rollback", () => {
  it("promote: makes the named revision production, says what was live, and saves the new production URL", async () => {
    const { folder, identity } = await linked(LIVE_ON_2);
    expect(await runCliIn(folder.site, ["promote", "rev0000003"], folder.env)).toEqual({
      code: 0,
      stdout:
        `Promoted ${SLUG}: production serves revision rev0000003 (was rev0000002)\n` +
        `  Production: ${CUSTOM}\n` +
        `  Revision:   https://rev0000003--${SLUG}.sites.test/\n`,
      stderr: "",
    });
    expect(
      api.received.map(({ method, path, headers, body }) => [method, path, headers.authorization, body]),
    ).toEqual([
      ["POST", STATE_PATH, `Bearer ${TOKEN}`, identity],
      ["POST", PROMOTE_PATH, `Bearer ${TOKEN}`, { ...identity, revisionId: "rev0000003" }],
    ]);
    expect(await saved(folder)).toEqual(savedProject(api.url, { dir: folder.site, productionUrl: CUSTOM }));
    expect(await locksLeft(folder)).toEqual([]);
  });

  it("promote: --json prints the API's answer with the revision that was live before", async () => {
    const { folder } = await linked(LIVE_ON_2);
    const { code, stdout, stderr } = await runCliIn(
      folder.site,
      ["promote", "rev0000003", "--json"],
      folder.env,
    );
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toBe(
      `${JSON.stringify({ ...promoted("rev0000003"), previousRevisionId: "rev0000002" })}\n`,
    );
  });

  it("promote: on a project with nothing in production, says no revision was live before", async () => {
    const { folder } = await linked([revision("rev0000001", { preview: true })]);
    const text = await runCliIn(folder.site, ["promote", "rev0000001"], folder.env);
    expect(text.stdout.split("\n")[0]).toBe(`Promoted ${SLUG}: production serves revision rev0000001`);
    const json = await runCliIn(folder.site, ["promote", "rev0000001", "--json"], folder.env);
    expect(JSON.parse(json.stdout).previousRevisionId).toBeNull();
  });

  it("rollback: without a revision, puts back the next older one that is not a preview", async () => {
    const { folder } = await linked([
      revision("rev0000005", { preview: true }),
      revision("rev0000004", { production: true }),
      revision("rev0000003", { preview: true }),
      revision("rev0000002"),
      revision("rev0000001"),
    ]);
    const { code, stdout } = await runCliIn(folder.site, ["rollback"], folder.env);
    expect([code, stdout.split("\n")[0]]).toEqual([
      0,
      `Rolled back ${SLUG}: production serves revision rev0000002 (was rev0000004)`,
    ]);
    expect(promotedIds(api.received)).toEqual(["rev0000002"]);
  });

  it("rollback: with a revision, puts back that one", async () => {
    const { folder } = await linked([revision("rev0000002", { production: true }), revision("rev0000001")]);
    const { code, stdout } = await runCliIn(folder.site, ["rollback", "rev0000009", "--json"], folder.env);
    expect([code, JSON.parse(stdout).revisionId]).toEqual([0, "rev0000009"]);
    expect(promotedIds(api.received)).toEqual(["rev0000009"]);
  });

  it("rollback: with no revision older than the live one but previews, NO_PREVIOUS_REVISION names the live one; nothing promoted", async () => {
    const { folder } = await linked([
      revision("rev0000003", { preview: false }),
      revision("rev0000002", { production: true }),
      revision("rev0000001", { preview: true }),
    ]);
    const { code, stdout, stderr } = await runCliIn(folder.site, ["rollback", "--json"], folder.env);
    expect(code).toBe(1);
    const message = `${SLUG} keeps no revision older than the live one (rev0000002)`;
    expect(JSON.parse(stdout)).toEqual({ error: { code: "NO_PREVIOUS_REVISION", message } });
    expect(stderr).toBe(
      `Error: ${message}\n\`deploy list\` shows the revisions; \`deploy rollback <revision>\` names one.\n`,
    );
    expect(promotedIds(api.received)).toEqual([]);
    expect(await locksLeft(folder)).toEqual([]);
  });

  it("rollback: with no production revision, NO_PREVIOUS_REVISION says there is nothing to roll back from", async () => {
    const { folder } = await linked([revision("rev0000002"), revision("rev0000001")]);
    const { code, stderr } = await runCliIn(folder.site, ["rollback"], folder.env);
    expect([code, stderr.split("\n")[0]]).toEqual([
      1,
      `Error: ${SLUG} has no production revision to roll back from`,
    ]);
    expect(promotedIds(api.received)).toEqual([]);
  });

  it("promote: an API error exits 1 with its hint, leaves the saved project as it was and lets the lock go", async () => {
    const { folder } = await linked(LIVE_ON_2);
    api.on(`POST ${PROMOTE_PATH}`, apiError(404, "REVISION_NOT_FOUND", "no revision rev0000009"));
    const { code, stdout, stderr } = await runCliIn(
      folder.site,
      ["promote", "rev0000009", "--json"],
      folder.env,
    );
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.code).toBe("REVISION_NOT_FOUND");
    expect(stderr).toMatch(/^Error: .*\n`deploy list` shows the revisions the project keeps\.\n$/);
    expect(await saved(folder)).toEqual(savedProject(api.url, { dir: folder.site }));
    expect(await locksLeft(folder)).toEqual([]);
  });

  it("promote: waits for the folder's lock, and gives up as LOCKED without asking the API", async () => {
    const { folder } = await linked(LIVE_ON_2);
    await lockSite(folder);
    const env = { ...folder.env, DEPLOY_LOCK_WAIT_SECONDS: "0" };
    const { code, stdout } = await runCliIn(folder.site, ["promote", "rev0000003", "--json"], env);
    expect([code, JSON.parse(stdout).error.code]).toEqual([1, "LOCKED"]);
    expect(api.received).toEqual([]);
  });

  it("promote: with DEPLOY_CREDENTIAL, promotes the credential's project with its token and saves nothing", async () => {
    const folder = await root.scratch(api.url);
    api.on(`POST ${STATE_PATH}`, { status: 200, body: stateAnswer(LIVE_ON_2) });
    api.on(`POST ${PROMOTE_PATH}`, { status: 200, body: promoted("rev0000003") });
    const env = { ...folder.env, ...credentialEnv(api.url, SLUG, "sdp_credential") };
    const { code, stdout } = await runCliIn(folder.site, ["promote", "rev0000003"], env);
    expect([code, stdout.split("\n")[0]]).toEqual([
      0,
      `Promoted ${SLUG}: production serves revision rev0000003 (was rev0000002)`,
    ]);
    expect(api.received.map((request) => request.headers.authorization)).toEqual([
      "Bearer sdp_credential",
      "Bearer sdp_credential",
    ]);
    expect(await readdir(folder.config).catch(() => [])).toEqual([]);
  });
});
