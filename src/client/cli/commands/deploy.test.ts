import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PROJECT_FILE } from "../../local/project-file.js";
import type { CompletedDeploy, PreparedDeploy } from "../../net/api-types.js";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { publicProject, SLUG } from "../test-fixtures.js";
import { savedProject, type Scratch, TOKEN, useScratchRoot } from "./test-project.js";

const api = useTestApi();
const root = useScratchRoot("deploy-command-");

beforeEach(() => {
  // The summary's time and expiry come from the clock.
  vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T10:00:00.000Z") });
});
afterEach(() => {
  vi.useRealTimers();
});

const PRODUCTION = `https://${SLUG}.sites.test/`;
const REVISION_URL = `https://rev0000001--${SLUG}.sites.test/`;

/**
 * A site folder of one page, and an API that creates project SLUG for it, holds its file already
 * (nothing to upload) and completes the deploy as revision rev0000001.
 */
async function newSite(): Promise<Scratch> {
  const folder = await root.scratch(api.url);
  await writeFile(join(folder.site, "index.html"), "<h1>hello</h1>\n");
  const project = publicProject({ revisionId: null });
  api.on("POST /projects", { status: 201, body: { project, apiToken: TOKEN } });
  const prepared: PreparedDeploy = {
    deployId: "dep_1",
    accountId: "acc_1",
    revisionId: "rev0000001",
    uploadJwt: "upload.jwt",
    buckets: [],
    project,
    urls: { upload: `${api.url}/upload`, production: PRODUCTION, revision: REVISION_URL },
    expiresAt: "2026-11-28T11:00:00.000Z",
  };
  api.on(`POST /projects/${SLUG}/prepare`, { status: 200, body: prepared });
  api.on(`POST /projects/${SLUG}/deploy`, (request) => {
    const preview = (request.body as { preview?: boolean }).preview === true;
    const completed: CompletedDeploy = {
      revisionId: "rev0000001",
      productionUrl: PRODUCTION,
      revisionUrl: REVISION_URL,
      project: publicProject({ revisionId: preview ? null : "rev0000001" }),
    };
    return { status: 200, body: completed };
  });
  return folder;
}

/** The routes asked, in order, as `METHOD /path`. */
const asked = () => api.received.map(({ method, path }) => `${method} ${path}`);

const SUMMARY = [
  `Deployed ${SLUG} (revision rev0000001)`,
  `  Production: ${PRODUCTION}`,
  `  Revision:   ${REVISION_URL}`,
  "  Files:      1 total: 0 uploaded, 1 already on the server",
  "  Sent:       0 B",
  "  Time:       0ms",
  "  Expires:    2026-12-20 09:00 UTC, unless deployed again before then (every deploy, even an unchanged one, moves the date)",
  "",
].join("\n");

describe("deploy", () => {
  // First: the command's module loads in the first test that runs it, and per-test coverage
  // credits its module-level note to that test alone.
  it("deploy: --prod says on stderr that production is the default, and deploys to production all the same", async () => {
    const folder = await newSite();
    const { code, stdout, stderr } = await runCliIn(folder.site, ["--prod"], folder.env);
    expect([code, stdout]).toEqual([0, SUMMARY]);
    expect(stderr.split("\n")[0]).toBe(
      "Note: production is the default here, so --prod changes nothing; `deploy --preview` deploys without touching production.",
    );
    expect(api.received.at(-1)!.body).not.toHaveProperty("preview");
  });

  it("deploy: a first deploy creates the project, publishes it, prints the URLs and figures, and keeps the token and the link", async () => {
    const folder = await newSite();
    const { code, stdout, stderr } = await runCliIn(folder.site, [], folder.env);
    expect([code, stdout]).toEqual([0, SUMMARY]);
    expect(stderr).toContain(`Created project ${SLUG} for ${folder.site}\n`);
    expect(stderr).not.toContain("--prod");
    expect(asked()).toEqual([
      "GET /limits",
      "POST /projects",
      `POST /projects/${SLUG}/prepare`,
      `POST /projects/${SLUG}/deploy`,
    ]);
    const completion = api.received.at(-1)!;
    expect(completion.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(completion.body).toMatchObject({ deployId: "dep_1", completionJwt: "upload.jwt" });
    expect(completion.body).not.toHaveProperty("preview");
    const held = await folder.saved.findBySlug(api.url, SLUG);
    expect(held?.project).toEqual(
      savedProject(api.url, { dir: folder.site, createdAt: "2026-11-01T09:00:00.000Z" }),
    );
    const link = JSON.parse(await readFile(join(folder.site, PROJECT_FILE), "utf8"));
    expect([link.project, link.apiUrl, link.dir]).toEqual([SLUG, api.url, "."]);
  });

  it("deploy: --json prints the summary as one object on stdout", async () => {
    const folder = await newSite();
    const { code, stdout } = await runCliIn(folder.site, ["--json"], folder.env);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `${JSON.stringify({
        projectSlug: SLUG,
        revisionId: "rev0000001",
        productionUrl: PRODUCTION,
        revisionUrl: REVISION_URL,
        expiresAt: "2026-12-20T09:00:00.000Z",
        preview: false,
        files: 1,
        uploaded: 0,
        identical: 0,
        bytesUploaded: 0,
        durationMs: 0,
      })}\n`,
    );
  });

  it("deploy: --preview publishes a preview, says production is unchanged and how to promote it", async () => {
    const folder = await newSite();
    const { code, stdout } = await runCliIn(folder.site, ["--preview"], folder.env);
    expect(code).toBe(0);
    expect(stdout.split("\n").slice(0, 3)).toEqual([
      `Preview of ${SLUG} (revision rev0000001); production unchanged`,
      `  Revision:   ${REVISION_URL}`,
      `  Production: ${PRODUCTION} (unchanged; \`deploy promote rev0000001\` puts this revision live)`,
    ]);
    expect(api.received.at(-1)!.body).toMatchObject({ preview: true });
  });

  it("deploy: on a terminal the summary is coloured, unless NO_COLOR is set", async () => {
    const coloured = await newSite();
    const env = { ...coloured.env, NO_COLOR: "", CI: "1" };
    const run = await runCliIn(coloured.site, [], env, { isTTY: true });
    expect(run.stdout.split("\n")[0]).toBe(`\u001b[32mDeployed ${SLUG} (revision rev0000001)\u001b[39m`);
    const plain = await newSite();
    expect((await runCliIn(plain.site, [], { ...plain.env, CI: "1" }, { isTTY: true })).stdout).toBe(SUMMARY);
  });

  it("deploy: an API error exits 1 with its message; --json prints it; nothing is saved", async () => {
    const folder = await newSite();
    api.on("POST /projects", apiError(429, "RATE_LIMITED", "too many projects from this address"));
    const { code, stdout, stderr } = await runCliIn(folder.site, ["--json"], folder.env);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.code).toBe("RATE_LIMITED");
    expect(stderr).toMatch(
      /too many projects from this address\nWait a little and run the command again\.\n$/,
    );
    expect(await folder.saved.list()).toEqual([]);
  });

  describe("a folder that looks like a project's source", () => {
    /** A site folder with a package.json beside its page. */
    async function sourceSite(): Promise<Scratch> {
      const folder = await newSite();
      await writeFile(join(folder.site, "package.json"), "{}\n");
      await mkdir(join(folder.site, "dist"));
      await writeFile(join(folder.site, "dist", "index.html"), "<h1>built</h1>\n");
      return folder;
    }

    /** A terminal's stdin on which `answer` is typed. */
    function typed(answer: string) {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      stdin.end(answer);
      return stdin;
    }

    it("deploy: off a terminal, a source folder is SOURCE_FOLDER naming the built one, and nothing is sent", async () => {
      const folder = await sourceSite();
      const { code, stdout, stderr } = await runCliIn(folder.site, ["--json"], folder.env);
      expect(code).toBe(1);
      expect(JSON.parse(stdout).error).toEqual({
        code: "SOURCE_FOLDER",
        message: `${folder.site} looks like a project's source, not a built site: it has a package.json; nothing was deployed`,
      });
      expect(stderr).toContain("deploy that with `deploy ./dist`");
      expect(stderr).toContain("run again with --yes");
      expect(api.received).toEqual([]);
    });

    it("deploy: on a terminal, asks; yes deploys and is remembered in the project file, no cancels", async () => {
      const refused = await sourceSite();
      const env = { ...refused.env, CI: "1" };
      const no = await runCliIn(refused.site, [], env, { isTTY: true, stdin: typed("n\n") });
      expect(no.code).toBe(1);
      expect(no.stderr).toContain(`Publish every file of ${refused.site} as it is? [y/N] `);
      expect(no.stderr).toContain("Error: deploy cancelled; nothing was deployed\n");
      expect(api.received).toEqual([]);

      const confirmed = await sourceSite();
      const yes = await runCliIn(
        confirmed.site,
        [],
        { ...confirmed.env, CI: "1" },
        {
          isTTY: true,
          stdin: typed("y\n"),
        },
      );
      expect(yes.code).toBe(0);
      expect(yes.stdout).toContain(`Deployed ${SLUG} (revision rev0000001)`);
      const link = JSON.parse(await readFile(join(confirmed.site, PROJECT_FILE), "utf8"));
      expect(link.publishAsIs).toBe(true);
    });

    it("deploy: --yes deploys a source folder without asking", async () => {
      const folder = await sourceSite();
      const { code, stderr } = await runCliIn(folder.site, ["--yes"], folder.env);
      expect(code).toBe(0);
      expect(stderr).not.toContain("[y/N]");
      expect(asked().at(-1)).toBe(`POST /projects/${SLUG}/deploy`);
    });
  });
});
