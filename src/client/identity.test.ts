import { mkdir, mkdtemp, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configDir } from "./config-dir.js";
import { anonFingerprint, projectHashOf, resolveSiteDir, sha256Hex } from "./identity.js";
import { ProjectStore } from "./project-store.js";

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

  it("ProjectStore: records are keyed by API URL and projectHash", async () => {
    const store = new ProjectStore(join(base, "config"));
    const record = {
      projectSlug: "a-b-c",
      apiToken: "t",
      apiUrl: "http://one",
      dir: "/d",
      productionUrl: "u",
      createdAt: "",
    };
    await store.put("h1", record);
    expect(await store.get("http://one", "h1")).toEqual(record);
    expect(await store.get("http://two", "h1")).toBeUndefined();
    expect(await store.get("http://one", "h2")).toBeUndefined();
    expect((await stat(join(base, "config", "projects.json"))).mode & 0o777).toBe(0o600);
    await store.remove("http://one", "h1");
    expect(await store.get("http://one", "h1")).toBeUndefined();
  });
});
