import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  configDir,
  createPrivateFile,
  invalidConfigFile,
  readJsonFile,
  writePrivateFile,
} from "./config-dir.js";
import { refusal } from "../test-rejection.js";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "config-dir-"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("config-dir", () => {
  it("configDir: DEPLOY_CONFIG_DIR, else XDG_CONFIG_HOME's static-deploy, else HOME's .config, else the user's home", () => {
    expect(configDir({ DEPLOY_CONFIG_DIR: "/c", XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/c");
    expect(configDir({ DEPLOY_CONFIG_DIR: "", XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/static-deploy");
    expect(configDir({ XDG_CONFIG_HOME: "", HOME: "/h" })).toBe("/h/.config/static-deploy");
    expect(configDir({ HOME: "" })).toBe(join(homedir(), ".config", "static-deploy"));
  });

  it("writePrivateFile: creates the folders (0700) and a file of mode 0600, replacing one there, leaving no temporary file", async () => {
    const path = join(root, "w", "deep", "file.json");
    await writePrivateFile(path, "one");
    await writePrivateFile(path, "two");
    expect(await readFile(path, "utf8")).toBe("two");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, "w", "deep"))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(root, "w", "deep"))).toEqual(["file.json"]);
  });

  it("writePrivateFile: a path that cannot be written is CONFIG naming it, and no temporary file is left", async () => {
    const path = join(root, "blocked", "file.json");
    await mkdir(path, { recursive: true });
    await writeFile(join(path, "inside"), "x");
    const error = await refusal(writePrivateFile(path, "data"));
    expect(error.code).toBe("CONFIG");
    expect(error.message).toMatch(new RegExp(`^cannot write ${path}: `));
    expect(await readdir(join(root, "blocked"))).toEqual(["file.json"]);
    const under = await refusal(
      writePrivateFile(join(root, "blocked", "file.json", "inside", "x.json"), "d"),
    );
    expect(under.code).toBe("CONFIG");
    expect(under.message).toContain("cannot create the config folder");
  });

  it("createPrivateFile: true and the content when none exists; false, the first content kept, when one does", async () => {
    const path = join(root, "c", "lock");
    expect(await createPrivateFile(path, "first")).toBe(true);
    expect(await createPrivateFile(path, "second")).toBe(false);
    expect(await readFile(path, "utf8")).toBe("first");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(root, "c"))).toEqual(["lock"]);
  });

  it("readJsonFile: the parsed value; undefined when missing; CONFIG_INVALID naming a file that does not parse", async () => {
    const path = join(root, "r.json");
    await writeFile(path, '{"a":1}');
    expect(await readJsonFile(path)).toEqual({ a: 1 });
    expect(await readJsonFile(join(root, "missing.json"))).toBeUndefined();
    await writeFile(path, "{");
    const error = await refusal(readJsonFile(path));
    expect([error.code, error.message]).toEqual(["CONFIG_INVALID", `${path} is not valid JSON`]);
    expect(error.hint).toBe(invalidConfigFile(path, "x").hint);
    expect(error.hint).toContain("It was left as it is");
    const unreadable = await refusal(readJsonFile(root));
    expect(unreadable.code).toBe("CONFIG");
    expect(unreadable.message).toMatch(new RegExp(`^cannot read ${root}: `));
  });
});
