import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "../context.js";
import { CliError } from "../errors.js";
import { readSettings } from "../settings.js";
import { guardSourceFolder, sourceSigns } from "./source-guard.js";

let root: string;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "source-guard-")));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A folder under the test's root holding `files` (a path ending in `/` is an empty folder). */
async function folder(name: string, files: string[]): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const file of files) {
    if (file.endsWith("/")) await mkdir(join(dir, file), { recursive: true });
    else {
      await mkdir(join(dir, file, ".."), { recursive: true });
      await writeFile(join(dir, file), "x");
    }
  }
  return dir;
}

/** The refusal of a guarded deploy off a terminal, run from `cwd`. */
async function refusal(dir: string, cwd: string): Promise<CliError> {
  const ctx = createContext(
    { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd },
    readSettings({}),
    "http://127.0.0.1:1",
    false,
  );
  const error = await guardSourceFolder(ctx, dir, false).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe("source-guard", () => {
  it("sourceSigns: a built site, or an empty folder, shows no sign", async () => {
    expect(sourceSigns(await folder("built", ["index.html", "dist/index.html"]))).toBeUndefined();
    expect(sourceSigns(await folder("empty", []))).toBeUndefined();
  });

  it("sourceSigns: each sign alone, in words", async () => {
    expect(sourceSigns(await folder("pkg", ["package.json", "index.html"]))).toEqual({
      signs: ["a package.json"],
      outputFolder: undefined,
    });
    expect(sourceSigns(await folder("repo", [".git/", "index.html"]))?.signs).toEqual([
      "a .git (it is a repository's root)",
    ]);
    expect(sourceSigns(await folder("site-dir", ["_site/index.html"]))).toEqual({
      signs: ["no index.html, while _site/ has one"],
      outputFolder: "_site",
    });
  });

  it("sourceSigns: the first output folder in the suggested order that has an index.html file", async () => {
    const dir = await folder("several", [
      "public/index.html",
      "build/index.html",
      "dist/index.html/",
      "out/other.html",
    ]);
    expect(sourceSigns(dir)?.outputFolder).toBe("build");
  });

  it("guardSourceFolder: not a source folder, or confirmed, deploys without asking", async () => {
    const ctx = createContext(
      { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: "/" },
      readSettings({}),
      "http://127.0.0.1:1",
      false,
    );
    expect(await guardSourceFolder(ctx, await folder("plain", ["index.html"]), false)).toBe(false);
    expect(await guardSourceFolder(ctx, await folder("confirmed", ["package.json"]), true)).toBe(true);
  });

  it("guardSourceFolder: off a terminal, SOURCE_FOLDER names every sign and the output folder as typed from the cwd", async () => {
    const dir = await folder("app", ["package.json", ".git/", "dist/index.html"]);
    const inside = await refusal(dir, dir);
    expect(inside.code).toBe("SOURCE_FOLDER");
    expect(inside.message).toBe(
      `${dir} looks like a project's source, not a built site: it has a package.json, ` +
        "a .git (it is a repository's root) and no index.html, while dist/ has one; nothing was deployed",
    );
    expect(inside.hint).toBe(
      `Its built site is likely ${join(dir, "dist")}: deploy that with \`deploy ./dist\`.\n` +
        "To publish this folder as it is, run again with --yes.",
    );
    // From elsewhere, the output folder's absolute path.
    const outside = await refusal(dir, join(root, "elsewhere"));
    expect(outside.hint).toContain(`deploy that with \`deploy ${join(dir, "dist")}\``);
  });

  it("guardSourceFolder: two signs are joined by 'and'; without an output folder it says to build first", async () => {
    const dir = await folder("two", ["package.json", ".git/"]);
    const error = await refusal(dir, "/");
    expect(error.message).toContain("it has a package.json and a .git (it is a repository's root); nothing");
    expect(error.hint).toBe(
      "Build the site first and deploy the folder the build writes (dist/, build/, out/, …).\n" +
        "To publish this folder as it is, run again with --yes.",
    );
  });
  it("guardSourceFolder: one sign alone is named without 'and'; run from inside the output folder, its absolute path", async () => {
    const dir = await folder("one-sign", ["package.json", "index.html", "out/index.html"]);
    const error = await refusal(dir, join(dir, "out"));
    expect(error.message).toBe(
      `${dir} looks like a project's source, not a built site: it has a package.json; nothing was deployed`,
    );
    expect(error.hint).toContain(`deploy that with \`deploy ${join(dir, "out")}\``);
  });
});
