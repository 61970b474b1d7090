import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { findProjectFile, PROJECT_FILE, removeProjectFile, writeProjectFile } from "./project-file.js";
import { refusal } from "../test-rejection.js";

let root: string;
const LINK = { project: "coral-birch-nkc37", apiUrl: "http://127.0.0.1:8787" };

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "project-file-")));
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function folder(...parts: string[]): Promise<string> {
  const dir = join(root, ...parts);
  await mkdir(dir, { recursive: true });
  return dir;
}

async function invalid(dir: string): Promise<CliError> {
  const error = await findProjectFile(dir).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  return error as CliError;
}

describe("project-file", () => {
  it("writeProjectFile: outside a repository, in the folder itself, naming it as '.'; read back as written", async () => {
    const dir = await folder("plain");
    const path = await writeProjectFile(dir, LINK);
    expect(path).toBe(join(dir, PROJECT_FILE));
    const text = await readFile(path, "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    const content = JSON.parse(text) as Record<string, unknown>;
    expect(content).toEqual({ $comment: expect.stringContaining("holds no secret"), ...LINK, dir: "." });
    expect(await findProjectFile(dir)).toEqual({ path, link: { ...LINK, dir: "." } });
  });

  it("writeProjectFile: publishAsIs is written only when true", async () => {
    const dir = await folder("as-is");
    await writeProjectFile(dir, { ...LINK, publishAsIs: true });
    expect((await findProjectFile(dir))?.link.publishAsIs).toBe(true);
    await writeProjectFile(dir, LINK);
    const content = JSON.parse(await readFile(join(dir, PROJECT_FILE), "utf8")) as Record<string, unknown>;
    expect("publishAsIs" in content).toBe(false);
  });

  it("writeProjectFile: inside a repository, in its root naming the folder; another folder of it is not named", async () => {
    const repo = await folder("repo");
    await mkdir(join(repo, ".git"));
    const dist = await folder("repo", "site", "dist");
    const path = await writeProjectFile(dist, LINK);
    expect(path).toBe(join(repo, PROJECT_FILE));
    expect((await findProjectFile(dist))?.link.dir).toBe("site/dist");
    expect(await findProjectFile(await folder("repo", "other"))).toBeUndefined();
    // Written again: over the same file.
    expect(await writeProjectFile(dist, { ...LINK, project: "amber-fox-ab12c" })).toBe(path);
    expect((await findProjectFile(dist))?.link.project).toBe("amber-fox-ab12c");
    // A second folder of the repository, whose root file names the first: its own file.
    const docs = await folder("repo", "docs");
    expect(await writeProjectFile(docs, LINK)).toBe(join(docs, PROJECT_FILE));
    expect((await findProjectFile(docs))?.link.dir).toBe(".");
    expect((await findProjectFile(dist))?.path).toBe(path);
  });

  it("findProjectFile: a file that is not a project file is CONFIG_INVALID naming what is wrong", async () => {
    const cases: Array<[string, string]> = [
      ["{", "is not valid JSON"],
      ["null", `is not a project file (its "project" is missing or malformed)`],
      [JSON.stringify({ project: "Not A Slug", apiUrl: LINK.apiUrl, dir: "." }), `its "project"`],
      [JSON.stringify({ project: LINK.project, apiUrl: "127.0.0.1:8787", dir: "." }), `its "apiUrl"`],
      [JSON.stringify({ project: LINK.project, apiUrl: 8787, dir: "." }), `its "apiUrl"`],
      [JSON.stringify({ project: LINK.project, apiUrl: "see http://x", dir: "." }), `its "apiUrl"`],
      [JSON.stringify({ project: LINK.project, apiUrl: LINK.apiUrl, dir: "" }), `its "dir"`],
      [JSON.stringify({ project: LINK.project, apiUrl: LINK.apiUrl }), `its "dir"`],
      [" ".repeat(16 * 1024 + 1), "is too large to be a project file"],
    ];
    for (const [i, [text, problem]] of cases.entries()) {
      const dir = await folder(`invalid-${i}`);
      await writeFile(join(dir, PROJECT_FILE), text);
      const error = await invalid(dir);
      expect(error.code).toBe("CONFIG_INVALID");
      expect(error.message).toContain(
        `${join(dir, PROJECT_FILE)} ${problem.startsWith("its") ? "is not a project file (" : ""}${problem}`,
      );
      expect(error.hint).toBe(
        "Repair it, or remove it: it holds no secret, and `deploy link <project>` writes it again.",
      );
    }
  });

  it("findProjectFile: exactly 16 KiB is still read; a publishAsIs other than true is ignored", async () => {
    const dir = await folder("padded");
    const body = JSON.stringify({ ...LINK, dir: ".", publishAsIs: "yes" });
    await writeFile(join(dir, PROJECT_FILE), body.padEnd(16 * 1024, " "));
    expect((await findProjectFile(dir))?.link).toEqual({ ...LINK, dir: "." });
  });

  it("findProjectFile: a project file that cannot be read is PROJECT_FILE", async () => {
    const dir = await folder("unreadable");
    await mkdir(join(dir, PROJECT_FILE));
    const error = await invalid(dir);
    expect(error.code).toBe("PROJECT_FILE");
    expect(error.message).toContain(`cannot read ${join(dir, PROJECT_FILE)}`);
  });

  it("removeProjectFile: the file is gone, and the folder names no project", async () => {
    const dir = await folder("removed");
    await writeProjectFile(dir, LINK);
    await removeProjectFile((await findProjectFile(dir))!);
    await expect(stat(join(dir, PROJECT_FILE))).rejects.toMatchObject({ code: "ENOENT" });
    // Removing it again is not an error.
    await removeProjectFile({ path: join(dir, PROJECT_FILE), link: { ...LINK, dir: "." } });
    expect(await findProjectFile(dir)).toBeUndefined();
  });

  it("writeProjectFile: a folder that does not exist is PROJECT_FILE naming the path", async () => {
    const dir = await folder("blocked");
    const error = await refusal(writeProjectFile(join(dir, "missing"), LINK));
    expect(error.code).toBe("PROJECT_FILE");
    expect(error.message).toContain(`cannot write ${join(dir, "missing", PROJECT_FILE)}`);
  });

  it("writeProjectFile: a folder whose path runs through a file is PROJECT_FILE, not the clean-up's own error", async () => {
    const dir = await folder("through-a-file");
    await writeFile(join(dir, "file"), "not a folder");
    const error = await refusal(writeProjectFile(join(dir, "file"), LINK));
    expect(error).toBeInstanceOf(CliError);
    expect(error.code).toBe("PROJECT_FILE");
  });
});
