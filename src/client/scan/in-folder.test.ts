import { mkdtempSync, realpathSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inFolder } from "./in-folder.js";
import { walkSite } from "./walk.js";

describe("inFolder", () => {
  const made: string[] = [];
  const folder = () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "in-folder-")));
    made.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("inFolder: the work runs in the folder, relative paths reach its files, and the directory is given back after", () => {
    const site = folder();
    writeFileSync(join(site, "a.txt"), "a");
    const before = process.cwd();
    const seen = inFolder(site, (relative) => ({ relative, cwd: process.cwd(), found: existsSync("a.txt") }));
    expect(seen).toEqual({ relative: true, cwd: site, found: true });
    expect(process.cwd()).toBe(before);
  });

  it("inFolder: a work that throws still gives the directory back", () => {
    const site = folder();
    const before = process.cwd();
    expect(() =>
      inFolder(site, () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(process.cwd()).toBe(before);
  });

  it("inFolder: a folder it cannot enter runs the work in place, told so", () => {
    const before = process.cwd();
    const seen = inFolder(join(folder(), "missing"), (relative) => ({ relative, cwd: process.cwd() }));
    expect(seen).toEqual({ relative: false, cwd: before });
  });

  it("walkSite: lists by paths relative to the folder and leaves the working directory as it was", async () => {
    const site = folder();
    writeFileSync(join(site, "index.html"), "<p>hi</p>");
    const before = process.cwd();
    const files = await walkSite(site);
    expect(files.map((file) => [file.path, file.absPath, file.size])).toEqual([
      ["index.html", join(site, "index.html"), 9],
    ]);
    expect(process.cwd()).toBe(before);
  });
});
