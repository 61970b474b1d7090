import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveFolderLink } from "./folder-link.js";
import { PROJECT_FILE, writeProjectFile } from "./project-file.js";
import { SavedProjects, type SavedProject } from "./saved-projects.js";
import { refusal } from "../test-rejection.js";

let root: string;
let saved: SavedProjects;
const API = "http://127.0.0.1:8787";
const PATH_HASH = "f".repeat(64);

const project = (slug: string, dir: string): SavedProject => ({
  projectSlug: slug,
  apiToken: `sdp_${slug}`,
  apiUrl: API,
  dir,
  productionUrl: `http://${slug}.localhost/`,
  createdAt: "2026-11-27T00:00:00.000Z",
});

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "folder-link-")));
  saved = new SavedProjects(join(root, "config"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function folder(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

describe("resolveFolderLink", () => {
  it("resolveFolderLink: a folder never deployed has no project and its own path hash", async () => {
    const dir = await folder("new");
    expect(await resolveFolderLink(saved, API, dir, PATH_HASH)).toEqual({
      saved: undefined,
      identityHash: PATH_HASH,
      projectFile: undefined,
    });
  });

  it("resolveFolderLink: without a project file, the project saved for the folder's path, with its identity", async () => {
    const dir = await folder("by-dir");
    await saved.put("1".repeat(64), project("amber-fox-ab12c", dir));
    expect(await resolveFolderLink(saved, API, dir, PATH_HASH)).toEqual({
      saved: project("amber-fox-ab12c", dir),
      identityHash: "1".repeat(64),
      projectFile: undefined,
    });
  });

  it("resolveFolderLink: a project file naming a held project gives it, wherever the folder now is", async () => {
    await saved.put("2".repeat(64), project("coral-birch-nkc37", "/old/place"));
    const dir = await folder("moved");
    await writeProjectFile(dir, { project: "coral-birch-nkc37", apiUrl: API });
    const link = await resolveFolderLink(saved, API, dir, PATH_HASH);
    expect(link.saved?.projectSlug).toBe("coral-birch-nkc37");
    expect(link.identityHash).toBe("2".repeat(64));
    expect(link.projectFile?.path).toBe(join(dir, PROJECT_FILE));
  });

  it("resolveFolderLink: a project file of another API is LINKED_ELSEWHERE, saying how to go on", async () => {
    const dir = await folder("elsewhere");
    await writeProjectFile(dir, { project: "coral-birch-nkc37", apiUrl: "https://other.example" });
    const error = await refusal(resolveFolderLink(saved, API, dir, PATH_HASH));
    expect(error.code).toBe("LINKED_ELSEWHERE");
    expect(error.message).toBe(
      `${join(dir, PROJECT_FILE)} links ${dir} to project coral-birch-nkc37 on https://other.example, not on ${API}`,
    );
    expect(error.hint).toBe(
      "Run with --api-url https://other.example, or `deploy unlink` to deploy this folder elsewhere.",
    );
  });

  it("resolveFolderLink: a project file naming a project without a token here is PROJECT_NOT_HELD", async () => {
    const dir = await folder("clone");
    await writeProjectFile(dir, { project: "quiet-lake-zz99z", apiUrl: API });
    const error = await refusal(resolveFolderLink(saved, API, dir, PATH_HASH));
    expect(error.code).toBe("PROJECT_NOT_HELD");
    expect(error.message).toBe(
      `${join(dir, PROJECT_FILE)} links ${dir} to project quiet-lake-zz99z, but this machine holds no token for it`,
    );
    expect(error.hint).toBe(
      "Where it was created, `deploy credential` prints a credential: set DEPLOY_CREDENTIAL to it here. " +
        "Or `deploy unlink` to deploy this folder to a new project of its own.",
    );
  });
});
