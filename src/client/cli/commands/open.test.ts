import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { revision, SLUG, stateAnswer } from "../test-fixtures.js";
import { credentialEnv, holdProject, lockSite, type Scratch, TOKEN, useScratchRoot } from "./test-project.js";

const api = useTestApi();
const root = useScratchRoot("open-command-");
let opener: string;
let openedFile: string;

beforeAll(async () => {
  // A browser that writes the URL it was given to a file, or fails when it is told to.
  openedFile = join(root.path, "opened.txt");
  opener = join(root.path, "opener.sh");
  await writeFile(opener, `#!/bin/sh\n[ "$1" = "--fail" ] && exit 3\nprintf '%s' "$1" > ${openedFile}\n`, {
    mode: 0o755,
  });
});
beforeEach(async () => {
  await rm(openedFile, { force: true });
});

const STATE_PATH = `/projects/${SLUG}/state`;
const PRODUCTION = `https://${SLUG}.sites.test/`;

/** What the opener was given; undefined when it did not run. */
const opened = () => readFile(openedFile, "utf8").catch(() => undefined);

/** A linked site folder whose state route answers `state`. */
async function linked(answer = stateAnswer([revision("rev0000002", { production: true })])) {
  const folder = await root.scratch(api.url);
  const { identity } = await holdProject(folder, api.url, SLUG, { linked: true });
  api.on(`POST ${STATE_PATH}`, { status: 200, body: answer });
  return { folder, identity, env: { ...folder.env, BROWSER: opener } };
}

const run = (folder: Scratch, argv: string[], env: Record<string, string>) =>
  runCliIn(folder.site, ["open", ...argv], env);

describe("open", () => {
  it("open: opens the production URL with the opener and says so, having read the state with the project's token", async () => {
    const { folder, identity, env } = await linked();
    expect(await run(folder, [], env)).toEqual({ code: 0, stdout: `Opened ${PRODUCTION}\n`, stderr: "" });
    expect(await opened()).toBe(PRODUCTION);
    expect(api.received).toHaveLength(1);
    const [request] = api.received;
    expect([request?.method, request?.path, request?.headers.authorization]).toEqual([
      "POST",
      STATE_PATH,
      `Bearer ${TOKEN}`,
    ]);
    expect(request?.body).toEqual(identity);
  });

  it("open: while the custom domain is pending, opens the generated hostname's URL", async () => {
    const pending = stateAnswer([revision("rev0000002", { production: true })], {
      hostname: "www.example.org",
      customHostname: "www.example.org",
      customHostnameStatus: "pending",
      productionUrl: "https://www.example.org/",
    });
    const { folder, env } = await linked(pending);
    expect((await run(folder, [], env)).stdout).toBe(`Opened ${PRODUCTION}\n`);
    expect(await opened()).toBe(PRODUCTION);
  });

  it("open: --preview opens the newest preview's revision URL, not production's nor an older preview's", async () => {
    const { folder, env } = await linked(
      stateAnswer([
        revision("rev0000004", { production: true }),
        revision("rev0000003", { preview: true }),
        revision("rev0000002", { preview: true }),
      ]),
    );
    const url = `https://rev0000003--${SLUG}.sites.test/`;
    expect(await run(folder, ["--preview"], env)).toEqual({ code: 0, stdout: `Opened ${url}\n`, stderr: "" });
    expect(await opened()).toBe(url);
  });

  it("open: --preview without a preview is NO_PREVIEW with its hint, and nothing is opened", async () => {
    const { folder, env } = await linked(
      stateAnswer([revision("rev0000002", { production: true }), revision("rev0000001")]),
    );
    expect(await run(folder, ["--preview"], env)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `Error: ${SLUG} has no preview\n` +
        "`deploy --preview <dir>` deploys one; `deploy open` opens production.\n",
    });
    const json = await run(folder, ["--preview", "--json"], env);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: "NO_PREVIEW", message: `${SLUG} has no preview` },
    });
    expect(await opened()).toBeUndefined();
  });

  it("open: --json prints { projectSlug, url, preview, opened: false } and opens nothing", async () => {
    const { folder, env } = await linked(
      stateAnswer([revision("rev0000003", { preview: true }), revision("rev0000002", { production: true })]),
    );
    const production = await run(folder, ["--json"], env);
    expect([production.code, production.stderr]).toEqual([0, ""]);
    expect(production.stdout).toBe(
      `${JSON.stringify({ projectSlug: SLUG, url: PRODUCTION, preview: false, opened: false })}\n`,
    );
    const preview = await run(folder, ["--json", "--preview"], env);
    expect(JSON.parse(preview.stdout)).toEqual({
      projectSlug: SLUG,
      url: `https://rev0000003--${SLUG}.sites.test/`,
      preview: true,
      opened: false,
    });
    expect(await opened()).toBeUndefined();
  });

  it("open: without an opener that works, prints the URL on stdout and says why on stderr", async () => {
    const { folder, env } = await linked();
    const said = {
      code: 0,
      stdout: `${PRODUCTION}\n`,
      stderr: "No browser opener found (set BROWSER to one); the URL is above.\n",
    };
    expect(await run(folder, [], { ...env, BROWSER: "none" })).toEqual(said);
    expect(await run(folder, [], { ...env, BROWSER: `${opener} --fail` })).toEqual(said);
    expect(await opened()).toBeUndefined();
  });

  it("open: an API error is reported with its code's hint and exit 1; nothing is opened", async () => {
    const { folder, env } = await linked();
    api.on(`POST ${STATE_PATH}`, apiError(404, "PROJECT_NOT_FOUND", "no such project"));
    const { code, stdout, stderr } = await run(folder, ["--json"], env);
    expect(code).toBe(1);
    const message = "could not read the project: the project no longer exists on the server";
    expect(JSON.parse(stdout)).toEqual({ error: { code: "PROJECT_NOT_FOUND", message } });
    expect(stderr).toBe(`Error: ${message}\nRun \`deploy\` in this folder to create a new project.\n`);
    expect(await opened()).toBeUndefined();
  });

  it("open: a folder without a project is NO_PROJECT, and the API is not asked", async () => {
    const folder = await root.scratch(api.url);
    const { code, stderr } = await run(folder, [], { ...folder.env, BROWSER: opener });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `Error: no project for ${folder.site} on ${api.url}\n` +
        "Deploy the folder first with `deploy <dir>` (and the same --api-url), or set DEPLOY_CREDENTIAL.\n",
    );
    expect(api.received).toEqual([]);
  });

  it("open: does not wait for the folder's lock (it changes nothing)", async () => {
    const { folder, env } = await linked();
    await lockSite(folder);
    const result = await run(folder, [], { ...env, DEPLOY_LOCK_WAIT_SECONDS: "0" });
    expect([result.code, result.stdout]).toEqual([0, `Opened ${PRODUCTION}\n`]);
  });

  it("open: with DEPLOY_CREDENTIAL, opens the credential's project from any folder, with its token", async () => {
    const folder = await root.scratch(api.url);
    api.on(`POST /projects/other-lake-xyz98/state`, {
      status: 200,
      body: stateAnswer([revision("rev0000002", { production: true })], { projectSlug: "other-lake-xyz98" }),
    });
    const env = { ...credentialEnv(api.url, "other-lake-xyz98", "sdp_other"), BROWSER: opener };
    const result = await run(folder, [], env);
    expect([result.code, result.stdout]).toEqual([0, "Opened https://other-lake-xyz98.sites.test/\n"]);
    expect(api.received.map((request) => request.headers.authorization)).toEqual(["Bearer sdp_other"]);
  });
});
