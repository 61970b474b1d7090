import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/ids.js";
import { configDir } from "./config-dir.js";
import { anonFingerprint, projectHashOf, resolveSiteDir } from "./identity.js";

let base: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "identity-")));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("identity and config", () => {
  it("configDir: DEPLOY_CONFIG_DIR, else XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configDir({ DEPLOY_CONFIG_DIR: "/c", XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/c");
    expect(configDir({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toBe("/x/static-deploy");
    expect(configDir({ HOME: "/h" })).toBe("/h/.config/static-deploy");
  });

  it("resolveSiteDir: a link to the folder gives the same real path, so the same projectHash", async () => {
    await mkdir(join(base, "site"));
    await symlink(join(base, "site"), join(base, "link"));
    const real = await resolveSiteDir(base, "site");
    expect(await resolveSiteDir(base, "link")).toBe(real);
    expect(projectHashOf(real)).toBe(sha256Hex(join(base, "site")));
    expect(projectHashOf(real)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("resolveSiteDir: a missing folder or a file is a clear error", async () => {
    await writeFile(join(base, "file"), "x");
    await expect(resolveSiteDir(base, "nope")).rejects.toThrow(`folder not found: ${join(base, "nope")}`);
    await expect(resolveSiteDir(base, "file")).rejects.toThrow(/not a folder/);
  });

  it("anonFingerprint: stable per install, kept in a 0600 file", async () => {
    const config = join(base, "config");
    const first = await anonFingerprint(config);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await anonFingerprint(config)).toBe(first);
    expect((await stat(join(config, "install.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(config)).mode & 0o777).toBe(0o700);
    expect(await anonFingerprint(join(base, "other"))).not.toBe(first);
  });

  it("anonFingerprint: concurrent first runs agree on one install id", async () => {
    const config = join(base, "config");
    const fingerprints = await Promise.all(Array.from({ length: 20 }, () => anonFingerprint(config)));
    expect(new Set(fingerprints).size).toBe(1);
    const { installId } = JSON.parse(await readFile(join(config, "install.json"), "utf8")) as {
      installId: string;
    };
    expect(sha256Hex(installId)).toBe(fingerprints[0]);
    expect(await readdir(config)).toEqual(["install.json"]);
  });

  it("anonFingerprint: an install.json that does not parse is named and left as it is", async () => {
    const config = join(base, "config");
    await mkdir(config);
    await writeFile(join(config, "install.json"), '{"installId":');
    await expect(anonFingerprint(config)).rejects.toThrow(
      `${join(config, "install.json")} is not valid JSON`,
    );
    expect(await readFile(join(config, "install.json"), "utf8")).toBe('{"installId":');
  });
  it("resolveSiteDir: each refusal has its code, words and hint", async () => {
    await writeFile(join(base, "file"), "x");
    await expect(resolveSiteDir(base, "nope")).rejects.toMatchObject({
      code: "NO_FOLDER",
      hint: "Check the path, e.g. `deploy ./dist`.",
    });
    await expect(resolveSiteDir(base, "file")).rejects.toMatchObject({
      code: "NOT_A_FOLDER",
      message: `not a folder: ${join(base, "file")}`,
      hint: "Give the folder that holds the site.",
    });
  });

  it("anonFingerprint: the install id kept is the one used; an id that is not 64 hex is named, never replaced", async () => {
    const config = join(base, "config");
    await mkdir(config, { recursive: true });
    const path = join(config, "install.json");
    await writeFile(path, JSON.stringify({ installId: "c".repeat(64) }));
    expect(await anonFingerprint(config)).toBe(sha256Hex("c".repeat(64)));
    for (const data of [
      { installId: "C".repeat(64) },
      { installId: `x${"c".repeat(64)}` },
      { installId: `${"c".repeat(64)}x` },
      { installId: 7 },
      {},
      null,
    ]) {
      await writeFile(path, JSON.stringify(data));
      await expect(anonFingerprint(config), JSON.stringify(data)).rejects.toThrow(
        `${path} holds no valid installId`,
      );
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual(data);
    }
  });
});
