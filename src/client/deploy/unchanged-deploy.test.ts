import { readdir, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { manifestDigest } from "../../core/manifest-digest.js";
import { parseManifest } from "../../core/manifest.js";
import { apiError } from "../cli/commands/test-api.js";
import { openFolder, type FolderProject } from "../context.js";
import { ApiError } from "../errors.js";
import { loadLastDeploy, saveLastDeploy } from "../local/last-deploy.js";
import { SavedProjects, type SavedProject } from "../local/saved-projects.js";
import type { Manifest, UnchangedDeploy } from "../net/api-types.js";
import { hashListed, listSite, type ListedSite } from "./scan-site.js";
import { publicProject, shownLines, useDeployKit } from "./test-deploy-kit.js";
import { deployIfUnchanged, rememberProduction, unchangedSummary } from "./unchanged-deploy.js";

const kit = useDeployKit();
let sites = 0;

beforeEach(() => kit.api.reset());

/** Three files, two of them alike, and a dotfile left out. */
const FILES = {
  "index.html": "<p>same</p>",
  "copy.html": "<p>same</p>",
  "about.html": "<p>about</p>",
  ".env": "SECRET=1",
};
const SLUG = "p-same";
const DIGEST = "f".repeat(64);

/** A new site folder with project p-same saved for it, opened and listed. */
async function listedSite(): Promise<{ folder: FolderProject; listed: ListedSite; saved: SavedProject }> {
  const dir = await kit.site(`site-${++sites}`, FILES);
  const saved: SavedProject = {
    projectSlug: SLUG,
    apiToken: "token-same",
    apiUrl: kit.api.url,
    dir,
    productionUrl: `http://${SLUG}.sites.test/`,
    createdAt: "2026-11-01T00:00:00.000Z",
  };
  const { ctx } = kit.context();
  const folder = await openFolder(ctx, dir, { lock: false });
  await folder.savedProjects.put(folder.identityHash, saved);
  const reopened = await openFolder(ctx, dir, { lock: false });
  return { folder: reopened, listed: await listSite(ctx, reopened, { includeDotfiles: false }), saved };
}

/** Production's answer that it serves these files already. */
function unchangedAnswer(fields: Partial<UnchangedDeploy> = {}): UnchangedDeploy {
  return {
    unchanged: true,
    revisionId: "rev-prod",
    project: publicProject(SLUG, { expiresAt: "2027-01-01T00:00:00.000Z" }),
    urls: { production: `http://${SLUG}.sites.test/`, revision: `http://rev-prod--${SLUG}.sites.test/` },
    ...fields,
  };
}

/** Records a production deploy of the listed files, as the last run would have. */
const recordLast = (
  folder: FolderProject,
  listed: ListedSite,
  fields: { projectSlug?: string; statDigest?: string } = {},
) =>
  saveLastDeploy(folder.configDir, folder.projectHash, {
    projectSlug: SLUG,
    statDigest: listed.statDigest,
    manifestDigest: DIGEST,
    distinctHashes: 2,
    ...fields,
  });

/** Each saved project file's inode and mtime: a rewrite replaces the file. */
async function savedFiles(): Promise<string[]> {
  const folder = join(kit.configDir, "projects");
  const names = await readdir(folder);
  return Promise.all(names.map(async (name) => `${name} ${(await stat(join(folder, name))).ino}`));
}

describe("deployIfUnchanged", () => {
  it("deployIfUnchanged: same stats as the last production deploy: one prepare names its digest, production's answer is the summary", async () => {
    const { folder, listed } = await listedSite();
    await recordLast(folder, listed);
    const { ctx, stderr } = kit.context();
    kit.api.on(`POST /projects/${SLUG}/prepare`, { status: 200, body: unchangedAnswer() });
    const startedAt = Date.now() - 5000;
    const summary = await deployIfUnchanged(ctx, folder, listed, startedAt);
    expect(summary).toEqual({
      projectSlug: SLUG,
      revisionId: "rev-prod",
      productionUrl: `http://${SLUG}.sites.test/`,
      revisionUrl: `http://rev-prod--${SLUG}.sites.test/`,
      expiresAt: "2027-01-01T00:00:00.000Z",
      files: 3,
      uploaded: 0,
      identical: 1,
      reused: 2,
      preview: false,
      unchanged: true,
      skippedDotfiles: [".env"],
      skippedGitignored: [],
      bytesUploaded: 0,
      durationMs: expect.any(Number),
    });
    expect(summary!.durationMs).toBeGreaterThanOrEqual(5000);
    expect(summary!.durationMs).toBeLessThan(60_000);
    expect(kit.api.received).toHaveLength(1);
    const [request] = kit.api.received;
    expect(request?.headers.authorization).toBe("Bearer token-same");
    expect(request?.body).toEqual({
      ...folder.api.identityFields,
      skipUnchanged: true,
      manifestDigest: DIGEST,
    });
    expect(shownLines(stderr())).toEqual([
      "Asking the server whether production already serves these files… 0ms",
      "3 files (34 B) unchanged since the last deploy: none read again",
      // The live line, drawn again under the note.
      "Asking the server whether production already serves these files… 0ms",
    ]);
  });

  it("deployIfUnchanged: no saved project, no record, another project's record or other stats: the long way, nothing asked", async () => {
    const { folder, listed } = await listedSite();
    const { ctx, stderr } = kit.context();
    expect(await deployIfUnchanged(ctx, { ...folder, saved: undefined }, listed, 0)).toBeUndefined();
    await recordLast(folder, listed);
    expect(await deployIfUnchanged(ctx, { ...folder, saved: undefined }, listed, 0)).toBeUndefined();
    const { folder: bare, listed: unrecorded } = await listedSite();
    expect(await deployIfUnchanged(ctx, bare, unrecorded, 0)).toBeUndefined();
    await recordLast(folder, listed, { projectSlug: "p-other" });
    expect(await deployIfUnchanged(ctx, folder, listed, 0)).toBeUndefined();
    await recordLast(folder, listed, { statDigest: "0".repeat(64) });
    expect(await deployIfUnchanged(ctx, folder, listed, 0)).toBeUndefined();
    expect(kit.api.received).toEqual([]);
    expect(stderr()).toBe("");
  });

  it("deployIfUnchanged: production moved, a manifest refused, or the project gone: the long way decides", async () => {
    const { folder, listed } = await listedSite();
    await recordLast(folder, listed);
    const codes = [
      "MANIFEST_CHANGED",
      "INVALID_MANIFEST",
      "INVALID_REQUEST",
      "UNAUTHORIZED",
      "PROJECT_NOT_FOUND",
      "PROJECT_EXPIRED",
    ];
    for (const code of codes) {
      const { ctx, stderr } = kit.context();
      kit.api.on(`POST /projects/${SLUG}/prepare`, apiError(409, code));
      expect(await deployIfUnchanged(ctx, folder, listed, 0)).toBeUndefined();
      expect(stderr()).not.toContain("none read again");
    }
    expect(kit.api.received).toHaveLength(codes.length);
  });

  it("deployIfUnchanged: any other refusal is the deploy's error", async () => {
    const { folder, listed } = await listedSite();
    await recordLast(folder, listed);
    const { ctx } = kit.context();
    kit.api.on(`POST /projects/${SLUG}/prepare`, apiError(403, "OWNERSHIP_MISMATCH", "not yours"));
    const error = await deployIfUnchanged(ctx, folder, listed, 0).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "OWNERSHIP_MISMATCH" });
  });
});

describe("unchangedSummary", () => {
  it("unchangedSummary: production at a new address is saved; the same address leaves the saved project as it was", async () => {
    const { folder, listed, saved } = await listedSite();
    const { ctx } = kit.context();
    const before = await savedFiles();
    await unchangedSummary(folder, saved, unchangedAnswer(), listed, 2, 0);
    expect(await savedFiles()).toEqual(before);
    const moved = unchangedAnswer({ urls: { production: "https://www.example.com/", revision: "r" } });
    const summary = await unchangedSummary(folder, saved, moved, listed, 2, 0);
    expect(summary.productionUrl).toBe("https://www.example.com/");
    const held = await new SavedProjects(kit.configDir).findBySlug(ctx.apiUrl, SLUG);
    expect(held?.project).toEqual({ ...saved, productionUrl: "https://www.example.com/" });
    expect(held?.projectHash).toBe(folder.identityHash);
  });

  it("unchangedSummary: a custom hostname waiting for DNS is said, with the address that serves now", async () => {
    const { folder, listed, saved } = await listedSite();
    const project = publicProject(SLUG, {
      customHostname: "www.example.com",
      customHostnameStatus: "pending",
      productionUrl: "https://www.example.com/",
    });
    const summary = await unchangedSummary(folder, saved, unchangedAnswer({ project }), listed, 2, 0);
    expect(summary.pendingDomain).toEqual({
      hostname: "www.example.com",
      servingUrl: `https://${SLUG}.sites.test/`,
    });
  });
});

describe("rememberProduction", () => {
  it("rememberProduction: records the stats and the digest the server takes of the deployed manifest", async () => {
    const { folder, listed } = await listedSite();
    const { ctx } = kit.context();
    const site = await hashListed(ctx, folder, listed);
    await rememberProduction(folder, "p-kept", site);
    const manifest: Manifest = {};
    site.files.forEach(
      (file, i) => (manifest[`/p-kept/${file.path}`] = { hash: site.hashes[i]!, size: file.size }),
    );
    const limits = { maxAssets: 10, maxAssetBytes: 1000, maxManifestBytes: 10_000 };
    expect(await loadLastDeploy(folder.configDir, folder.projectHash)).toEqual({
      projectSlug: "p-kept",
      statDigest: listed.statDigest,
      manifestDigest: manifestDigest(parseManifest(manifest, "p-kept", limits)),
      distinctHashes: 2,
    });
  });

  it("rememberProduction: a file modified within its racy window keeps the record out", async () => {
    const { folder } = await listedSite();
    const { ctx } = kit.context();
    const now = new Date();
    await utimes(join(folder.realDir, "about.html"), now, now);
    const site = await hashListed(ctx, folder, await listSite(ctx, folder, { includeDotfiles: false }));
    await rememberProduction(folder, "p-kept", site);
    expect(await loadLastDeploy(folder.configDir, folder.projectHash)).toBeUndefined();
  });
});
