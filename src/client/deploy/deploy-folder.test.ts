import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { apiError, type ReceivedRequest } from "../cli/commands/test-api.js";
import { loadLastDeploy } from "../local/last-deploy.js";
import { projectHashOf } from "../local/identity.js";
import { SavedProjects } from "../local/saved-projects.js";
import type { ServerLimits } from "../net/api-types.js";
import { deployFolder, type DeployOptions } from "./deploy-folder.js";
import {
  completed,
  manifestOf,
  preparedDeploy,
  publicProject,
  routesOf,
  scriptCreate,
  scriptUploads,
  shownLines,
  useDeployKit,
  uploadedHashes,
} from "./test-deploy-kit.js";

const kit = useDeployKit();
let dir: string;
let sites = 0;

beforeEach(async () => {
  kit.api.reset();
  dir = await kit.site(`site-${++sites}`, FILES);
});

/** Three files, two of them alike (23 distinct bytes of 34), and a dotfile left out. */
const FILES = {
  "index.html": "<p>home</p>",
  "copy.html": "<p>home</p>",
  "about.html": "<p>about</p>",
  ".env": "X",
};
const PRODUCTION: DeployOptions = { preview: false, includeDotfiles: false, yes: false };

/** The hash of a file, as the request's manifest gives it. */
const hashIn = (request: ReceivedRequest, slug: string, path: string): string =>
  manifestOf(request)[`/${slug}/${path}`]!.hash;

/** The n-th request the stand-in received on a route. */
const sent = (route: string, n = 0): ReceivedRequest =>
  kit.api.received.filter((request) => `${request.method} ${request.path}` === route)[n]!;

/**
 * A first deploy's API: creates `slug`, whose store already holds index.html's content (so only
 * about.html is asked for), takes the upload and publishes revision rev-1.
 */
function scriptFirstDeploy(slug: string): void {
  scriptCreate(kit.api, slug);
  kit.api.on(`POST /projects/${slug}/prepare`, (request) => ({
    status: 200,
    body: preparedDeploy(kit.api, "d1", [[hashIn(request, slug, "about.html")]]),
  }));
  scriptUploads(kit.api, "d1", "d2");
  kit.api.on(`POST /projects/${slug}/deploy`, { status: 200, body: completed(slug, "rev-1") });
}

const lockOf = (site: string) => join(kit.configDir, "locks", `${projectHashOf(site)}.lock`);

describe("deployFolder", () => {
  it("deployFolder: a first deploy creates the project, uploads what the server lacks, publishes and says what it did", async () => {
    scriptFirstDeploy("proj1");
    const { ctx, stderr } = kit.context();
    const summary = await deployFolder(ctx, dir, PRODUCTION);
    // Strict: no field is there undefined (no previousProjectSlug, message, alias).
    expect(summary).toStrictEqual({
      projectSlug: "proj1",
      revisionId: "rev-1",
      productionUrl: "http://proj1.sites.test/",
      revisionUrl: "http://rev-1--proj1.sites.test/",
      expiresAt: publicProject("proj1").expiresAt,
      files: 3,
      uploaded: 1,
      identical: 1,
      reused: 1,
      preview: false,
      skippedDotfiles: [".env"],
      skippedGitignored: [],
      bytesUploaded: 12,
      durationMs: expect.any(Number),
    });
    expect(summary.durationMs).toBeLessThan(60_000);
    expect(routesOf(kit.api)).toEqual([
      "GET /limits",
      "POST /projects",
      "POST /projects/proj1/prepare",
      "POST /upload/d1",
      "POST /projects/proj1/deploy",
    ]);
    const prepare = sent("POST /projects/proj1/prepare");
    expect(Object.keys(manifestOf(prepare)).sort()).toEqual([
      "/proj1/about.html",
      "/proj1/copy.html",
      "/proj1/index.html",
    ]);
    expect(manifestOf(prepare)["/proj1/about.html"]?.size).toBe(12);
    expect((prepare.body as { skipUnchanged?: boolean }).skipUnchanged).toBe(true);
    expect(uploadedHashes(kit.api)).toEqual([hashIn(prepare, "proj1", "about.html")]);
    const deploy = sent("POST /projects/proj1/deploy");
    expect(deploy.headers.authorization).toBe("Bearer token-proj1");
    const { projectHash, anonFingerprint } = prepare.body as Record<string, unknown>;
    expect(deploy.body).toEqual({ projectHash, anonFingerprint, deployId: "d1", completionJwt: "done-d1" });
    expect(shownLines(stderr())).toContain("Publishing… 0ms");
    // The live line is gone before the summary is printed.
    expect(stderr().endsWith("\r\x1b[2K")).toBe(true);
  });

  it("deployFolder: afterwards the project, its production and the folder's project file are remembered, and the lock is let go", async () => {
    scriptFirstDeploy("proj2");
    let lockedWhilePublishing = false;
    kit.api.on("POST /projects/proj2/deploy", () => {
      lockedWhilePublishing = existsSync(lockOf(dir));
      return {
        status: 200,
        body: completed("proj2", "rev-1", { productionUrl: "https://www.example.com/" }),
      };
    });
    const { ctx } = kit.context();
    await deployFolder(ctx, dir, PRODUCTION);
    expect(lockedWhilePublishing).toBe(true);
    expect(existsSync(lockOf(dir))).toBe(false);
    const held = await new SavedProjects(kit.configDir).findBySlug(kit.api.url, "proj2");
    expect(held?.project).toMatchObject({
      projectSlug: "proj2",
      dir,
      productionUrl: "https://www.example.com/",
    });
    expect((await loadLastDeploy(kit.configDir, projectHashOf(dir)))?.projectSlug).toBe("proj2");
    const file = JSON.parse(await readFile(join(dir, ".static-deploy.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(file).toMatchObject({ project: "proj2", apiUrl: kit.api.url, dir: "." });
    expect(file.publishAsIs).toBeUndefined();
  });

  it("deployFolder: the same files again: one prepare by digest, nothing uploaded or published", async () => {
    scriptFirstDeploy("proj3");
    await deployFolder(kit.context().ctx, dir, PRODUCTION);
    kit.api.reset();
    kit.api.on("POST /projects/proj3/prepare", {
      status: 200,
      body: {
        unchanged: true,
        revisionId: "rev-1",
        project: publicProject("proj3"),
        urls: { production: "http://proj3.sites.test/", revision: "r" },
      },
    });
    const { ctx, stderr } = kit.context();
    const summary = await deployFolder(ctx, dir, PRODUCTION);
    expect(summary).toMatchObject({
      unchanged: true,
      revisionId: "rev-1",
      uploaded: 0,
      reused: 2,
      identical: 1,
    });
    expect(routesOf(kit.api)).toEqual(["POST /projects/proj3/prepare"]);
    expect(sent("POST /projects/proj3/prepare").body).toHaveProperty("manifestDigest");
    expect(stderr().endsWith("\r\x1b[2K")).toBe(true);
  });

  it("deployFolder: production already serving the manifest is unchanged: nothing sent, production remembered", async () => {
    scriptFirstDeploy("proj4");
    kit.api.on("POST /projects/proj4/prepare", {
      status: 200,
      body: {
        unchanged: true,
        revisionId: "rev-0",
        project: publicProject("proj4"),
        urls: { production: "http://proj4.sites.test/", revision: "r" },
      },
    });
    const summary = await deployFolder(kit.context().ctx, dir, PRODUCTION);
    expect(summary).toMatchObject({
      projectSlug: "proj4",
      unchanged: true,
      revisionId: "rev-0",
      files: 3,
      uploaded: 0,
      reused: 2,
      identical: 1,
    });
    expect(routesOf(kit.api)).toEqual(["GET /limits", "POST /projects", "POST /projects/proj4/prepare"]);
    expect((await loadLastDeploy(kit.configDir, projectHashOf(dir)))?.projectSlug).toBe("proj4");
  });

  it("deployFolder: a preview asks for a revision of its own, publishes it as a preview and leaves production's record", async () => {
    scriptFirstDeploy("proj5");
    await deployFolder(kit.context().ctx, dir, PRODUCTION);
    const before = await loadLastDeploy(kit.configDir, projectHashOf(dir));
    kit.api.reset();
    scriptFirstDeploy("proj5");
    kit.api.on("POST /projects/proj5/deploy", { status: 200, body: completed("proj5", "rev-2") });
    const { ctx, stderr } = kit.context();
    const summary = await deployFolder(ctx, dir, { ...PRODUCTION, preview: true });
    expect(summary).toMatchObject({ preview: true, revisionId: "rev-2" });
    expect(routesOf(kit.api)).toEqual([
      "GET /limits",
      "POST /projects/proj5/prepare",
      "POST /upload/d1",
      "POST /projects/proj5/deploy",
    ]);
    expect(sent("POST /projects/proj5/prepare").body).not.toHaveProperty("skipUnchanged");
    expect(sent("POST /projects/proj5/deploy").body).toMatchObject({ preview: true });
    expect(shownLines(stderr())).toContain("Publishing the preview… 0ms");
    // A preview of other files is not what production serves: the record stays production's.
    await kit.site(basename(dir), { "about.html": "<p>about us</p>" });
    await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, preview: true });
    expect(await loadLastDeploy(kit.configDir, projectHashOf(dir))).toEqual(before);
  });

  it("deployFolder: a message or an alias goes with the deploy, which then never counts as unchanged", async () => {
    scriptFirstDeploy("proj6");
    await deployFolder(kit.context().ctx, dir, PRODUCTION);
    kit.api.reset();
    scriptFirstDeploy("proj6");
    const summary = await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, message: "fix typo" });
    expect(summary.message).toBe("fix typo");
    expect(summary).not.toHaveProperty("alias");
    expect(sent("POST /projects/proj6/prepare").body).not.toHaveProperty("skipUnchanged");
    expect(sent("POST /projects/proj6/deploy").body).toMatchObject({ message: "fix typo" });
    kit.api.reset();
    scriptFirstDeploy("proj6");
    kit.api.on("POST /projects/proj6/deploy", {
      status: 200,
      body: completed("proj6", "rev-3", { aliasUrl: "http://beta--proj6.sites.test/" }),
    });
    const aliased = await deployFolder(kit.context().ctx, dir, {
      ...PRODUCTION,
      preview: true,
      alias: "beta",
    });
    expect(aliased).toMatchObject({ alias: "beta", aliasUrl: "http://beta--proj6.sites.test/" });
    expect(aliased).not.toHaveProperty("message");
    expect(sent("POST /projects/proj6/deploy").body).toMatchObject({ preview: true, alias: "beta" });
  });

  it("deployFolder: a prepared deploy that expired is prepared and uploaded again once, then published", async () => {
    for (const code of ["DEPLOY_EXPIRED", "INVALID_COMPLETION"]) {
      kit.api.reset();
      dir = await kit.site(`site-${++sites}`, FILES);
      scriptFirstDeploy("proj7");
      let prepares = 0;
      kit.api.on("POST /projects/proj7/prepare", (request) => {
        prepares++;
        // The second round asks for the other content (the server lost it meanwhile).
        const path = prepares === 1 ? "about.html" : "index.html";
        return {
          status: 200,
          body: preparedDeploy(kit.api, `d${prepares}`, [[hashIn(request, "proj7", path)]]),
        };
      });
      let deploys = 0;
      kit.api.on("POST /projects/proj7/deploy", () =>
        ++deploys === 1 ? apiError(409, code) : { status: 200, body: completed("proj7", "rev-1") },
      );
      const { ctx, stderr } = kit.context();
      const summary = await deployFolder(ctx, dir, PRODUCTION);
      expect(summary).toMatchObject({ uploaded: 2, reused: 0, bytesUploaded: 23 });
      // The same manifest again; a prepare to upload by, never answered unchanged.
      const [first, again] = [
        sent("POST /projects/proj7/prepare", 0),
        sent("POST /projects/proj7/prepare", 1),
      ];
      expect(again.body).toEqual({ ...(first.body as object), skipUnchanged: undefined });
      expect(again.body).not.toHaveProperty("skipUnchanged");
      expect(sent("POST /projects/proj7/deploy", 1).body).toMatchObject({
        deployId: "d2",
        completionJwt: "done-d2",
      });
      expect(shownLines(stderr())).toEqual(
        expect.arrayContaining([
          "The prepared deploy expired or was incomplete; preparing it again.",
          "Preparing the deploy again (3 files)… 0ms",
        ]),
      );
    }
  });

  it("deployFolder: another refusal of the publish is the deploy's error, and the lock is let go", async () => {
    scriptFirstDeploy("proj8");
    kit.api.on("POST /projects/proj8/deploy", apiError(400, "INVALID_REQUEST", "bad rules"));
    const { ctx, stderr } = kit.context();
    await expect(deployFolder(ctx, dir, PRODUCTION)).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    expect(routesOf(kit.api).filter((route) => route.endsWith("/deploy"))).toHaveLength(1);
    expect(existsSync(lockOf(dir))).toBe(false);
    expect(stderr().endsWith("\r\x1b[2K")).toBe(true);
  });

  it("deployFolder: the site's rules go with the publish; on Cloudflare what it drops is warned of", async () => {
    const redirects = "/app/* /app/index.html 200\n";
    await writeFile(join(dir, "_redirects"), redirects);
    for (const platform of ["built-in", "cloudflare"] as const) {
      kit.api.reset();
      scriptFirstDeploy("proj9");
      kit.api.on("GET /limits", { status: 200, body: limits({ platform }) });
      const { ctx, stderr } = kit.context();
      // A message, so the second run is not taken for an unchanged redeploy.
      await deployFolder(ctx, dir, { ...PRODUCTION, message: platform });
      expect(sent("POST /projects/proj9/deploy").body).toMatchObject({ siteRules: { redirects } });
      const warned = stderr().includes(
        'warning: _redirects:1: Cloudflare drops "/app/* /app/index.html 200" as a loop',
      );
      expect(warned).toBe(platform === "cloudflare");
    }
  });

  it("deployFolder: the pending quota counts each content once and binds only a new project", async () => {
    scriptFirstDeploy("proj10");
    kit.api.on("GET /limits", { status: 200, body: limits({ pendingQuotaBytes: 22 }) });
    await expect(deployFolder(kit.context().ctx, dir, PRODUCTION)).rejects.toMatchObject({
      code: "QUOTA_EXCEEDED",
    });
    expect(routesOf(kit.api)).toEqual(["GET /limits"]);
    kit.api.on("GET /limits", { status: 200, body: limits({ pendingQuotaBytes: 23 }) });
    await deployFolder(kit.context().ctx, dir, PRODUCTION);
    kit.api.on("GET /limits", { status: 200, body: limits({ pendingQuotaBytes: 1 }) });
    await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, preview: true });
  });

  it("deployFolder: a source folder is refused off a terminal, deployed with --yes, and its yes remembered", async () => {
    await writeFile(join(dir, "package.json"), "{}");
    scriptFirstDeploy("proj11");
    const refused = deployFolder(kit.context().ctx, dir, PRODUCTION);
    await expect(refused).rejects.toMatchObject({ code: "SOURCE_FOLDER" });
    expect(kit.api.received).toEqual([]);
    expect(existsSync(lockOf(dir))).toBe(false);
    await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, yes: true });
    const file = JSON.parse(await readFile(join(dir, ".static-deploy.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(file).toMatchObject({ project: "proj11", publishAsIs: true });
    // The project file's yes stands for --yes next time.
    await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, preview: true });
  });

  it("deployFolder: a saved project that is gone is replaced, and the summary names the one it replaced", async () => {
    scriptFirstDeploy("proj12");
    await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, preview: true });
    kit.api.reset();
    kit.api.on("POST /projects/proj12/prepare", apiError(404, "PROJECT_NOT_FOUND"));
    scriptFirstDeploy("proj13");
    kit.api.on("POST /projects/proj13/deploy", {
      status: 200,
      body: completed("proj13", "rev-1", {
        project: publicProject("proj13", {
          customHostname: "www.example.com",
          customHostnameStatus: "pending",
          productionUrl: "https://www.example.com/",
        }),
      }),
    });
    const summary = await deployFolder(kit.context().ctx, dir, { ...PRODUCTION, preview: true });
    expect(summary).toMatchObject({
      projectSlug: "proj13",
      previousProjectSlug: "proj12",
      pendingDomain: { hostname: "www.example.com", servingUrl: "https://proj13.sites.test/" },
    });
    expect(await readdir(join(kit.configDir, "locks"))).toEqual([]);
  });
});

/** The server's limits, generous but for `fields`. */
function limits(fields: Partial<ServerLimits>): ServerLimits {
  return {
    maxFiles: 100,
    maxFileBytes: 1_000_000,
    maxRequestBytes: 1_000_000,
    projectQuotaBytes: 0,
    pendingQuotaBytes: 0,
    projectTtlSeconds: 0,
    deployTtlSeconds: 60,
    maxManifestBytes: 1_000_000,
    maxPathBytes: 1024,
    clientQuotaBytes: 0,
    platform: "built-in",
    ...fields,
  };
}
