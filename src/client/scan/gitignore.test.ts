import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ignore from "ignore";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { gitignored, parentLayers, repositoryRoot, siteLayer, type GitignoreLayer } from "./gitignore.js";

let base: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "gitignore-")));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const layer = (rules: string, base = "", outside = ""): GitignoreLayer => ({
  base,
  outside,
  rules: ignore().add(rules),
});

describe("gitignore", () => {
  it("repositoryRoot: the nearest folder holding .git, a folder or a worktree's file; undefined outside any", async () => {
    await mkdir(join(base, "repo/.git"), { recursive: true });
    await mkdir(join(base, "repo/a/worktree/b"), { recursive: true });
    await writeFile(join(base, "repo/a/worktree/.git"), "gitdir: elsewhere\n");
    expect(repositoryRoot(join(base, "repo"))).toBe(join(base, "repo"));
    expect(repositoryRoot(join(base, "repo/a"))).toBe(join(base, "repo"));
    expect(repositoryRoot(join(base, "repo/a/worktree/b"))).toBe(join(base, "repo/a/worktree"));
    // The temp folder is in no repository: the search ends at the file system's root.
    expect(repositoryRoot(base)).toBeUndefined();
  });

  it("parentLayers: none outside a repository, none at the repository's root", async () => {
    await mkdir(join(base, "site"));
    await writeFile(join(base, ".gitignore"), "*.map\n");
    expect(parentLayers(join(base, "site"))).toEqual([]);
    // At the repository's root, the .gitignore files above it (here base's) are never read.
    await mkdir(join(base, "site/.git"));
    expect(parentLayers(join(base, "site"))).toEqual([]);
  });

  it("parentLayers: every .gitignore from the site's parent up to the repository's root, outermost first, each seeing the site's path from its folder", async () => {
    const root = join(base, "outer/repo/app/dist");
    await mkdir(join(base, "outer/repo/.git"), { recursive: true });
    await mkdir(root, { recursive: true });
    // Above the repository: never read.
    await writeFile(join(base, "outer/.gitignore"), "index.html\n");
    await writeFile(join(base, ".gitignore"), "index.html\n");
    await writeFile(join(base, "outer/repo/.gitignore"), "*.log\r\nsecret.json\r\n");
    await writeFile(join(base, "outer/repo/app/.gitignore"), "*.map\n");
    const layers = parentLayers(root);
    expect(layers.map((found) => [found.base, found.outside])).toEqual([
      ["", "app/dist/"],
      ["", "dist/"],
    ]);
    // Windows line ends split like Unix ones: each line is a rule of its own.
    expect(gitignored(layers, "debug.log")).toBe(true);
    expect(gitignored(layers, "secret.json")).toBe(true);
    expect(gitignored(layers, "app.js.map")).toBe(true);
    expect(gitignored(layers, "index.html")).toBe(false);
  });

  it("parentLayers: the lines that ignore the site itself are left out, the file's other lines kept", async () => {
    const root = join(base, "repo/dist");
    await mkdir(join(base, "repo/.git"), { recursive: true });
    await mkdir(root);
    await writeFile(join(base, "repo/.gitignore"), "dist/\n/dist\n.env\n");
    const [only] = parentLayers(root);
    expect(only!.outside).toBe("dist/");
    expect(gitignored([only!], "index.html")).toBe(false);
    expect(gitignored([only!], ".env")).toBe(true);
  });

  it("parentLayers: a .gitignore that is a folder, or a path through a file, is no .gitignore", async () => {
    const root = join(base, "repo/site");
    await mkdir(join(base, "repo/.git"), { recursive: true });
    await mkdir(join(base, "repo/.gitignore"));
    await mkdir(root);
    expect(parentLayers(root)).toEqual([]);
    await writeFile(join(base, "file"), "x");
    expect(siteLayer(join(base, "file/.gitignore"), "")).toBeUndefined();
    expect(siteLayer(join(base, "missing/.gitignore"), "")).toBeUndefined();
  });

  it("parentLayers: a .gitignore that cannot be read is IGNORE_FILE naming it", async () => {
    const root = join(base, "repo/site");
    await mkdir(join(base, "repo/.git"), { recursive: true });
    await mkdir(root);
    // A link to itself: ELOOP, neither missing nor a folder.
    await symlink(".gitignore", join(base, "repo/.gitignore"));
    let error: unknown;
    try {
      parentLayers(root);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("IGNORE_FILE");
    expect((error as CliError).message).toMatch(
      new RegExp(`^cannot read ${join(base, "repo/.gitignore")}: ELOOP`),
    );
  });

  it("siteLayer: the rules of a site's .gitignore, for the paths under its folder", async () => {
    await writeFile(join(base, ".gitignore"), "*.log\n");
    const found = siteLayer(join(base, ".gitignore"), "sub/");
    expect([found!.base, found!.outside]).toEqual(["sub/", ""]);
    expect(gitignored([found!], "sub/a.log")).toBe(true);
    expect(gitignored([found!], "sub/a.txt")).toBe(false);
  });

  it("gitignored: the deepest layer with a rule for the path decides; none ignores nothing", () => {
    const top = layer("*.log\n");
    const sub = layer("!keep.log\n", "sub/");
    expect(gitignored([top, sub], "sub/keep.log")).toBe(false);
    expect(gitignored([top, sub], "sub/other.log")).toBe(true);
    expect(gitignored([top, sub], "keep.log")).toBe(true);
    // A deeper layer that ignores beats a higher one that brings back.
    expect(gitignored([layer("!*.log\n"), layer("*.log\n", "sub/")], "sub/a.log")).toBe(true);
    expect(gitignored([layer("!*.log\n"), layer("a.txt\n", "sub/")], "sub/a.log")).toBe(false);
    expect(gitignored([], "a.log")).toBe(false);
    // A layer above the site sees the site's path from its own folder.
    expect(gitignored([layer("dist/a.txt\n", "", "dist/")], "a.txt")).toBe(true);
  });
});
