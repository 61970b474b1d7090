import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, openFolder, openProject, requireSavedProject, retryNote } from "./context.js";
import { UsageError } from "./errors.js";
import type { CliIo } from "./io.js";
import { encodeCredential } from "./local/credential.js";
import { createProgress } from "./progress.js";
import { readSettings } from "./settings.js";
import { refusal } from "./test-rejection.js";

let root: string;
const CREDENTIAL = {
  apiUrl: "https://deploy.example/",
  projectSlug: "coral-birch-nkc37",
  apiToken: "sdp_secret",
  projectHash: "a".repeat(64),
  anonFingerprint: "b".repeat(64),
};

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "context-")));
  await mkdir(join(root, "site"));
});
afterAll(() => rm(root, { recursive: true, force: true }));

function io(
  env: Record<string, string>,
  stderr: { isTTY: boolean; text: string[] } = { isTTY: false, text: [] },
): CliIo {
  return {
    stdout: { write: () => true },
    stderr: { write: (text: string) => stderr.text.push(text), isTTY: stderr.isTTY },
    env: { DEPLOY_CONFIG_DIR: join(root, "config"), ...env },
    cwd: root,
  };
}

const context = (env: Record<string, string>, flag?: string) =>
  createContext(io(env), readSettings({}), flag, false);

describe("context", () => {
  it("createContext: the API URL from the flag, DEPLOY_API_URL or the default; retries as the settings say", () => {
    expect(context({}, "http://flag.example").apiUrl).toBe("http://flag.example");
    expect(context({ DEPLOY_API_URL: "http://env.example/" }).apiUrl).toBe("http://env.example");
    const ctx = createContext(
      io({}),
      { ...readSettings({}), maxAttempts: 4, retryBaseMs: 7 },
      undefined,
      true,
    );
    expect([ctx.retry.maxAttempts, ctx.retry.baseMs, ctx.json, ctx.credential]).toEqual([
      4,
      7,
      true,
      undefined,
    ]);
  });

  it("createContext: DEPLOY_CREDENTIAL sets the API URL; a blank one is none; another --api-url is a usage error", () => {
    const credential = encodeCredential(CREDENTIAL);
    const ctx = context({ DEPLOY_CREDENTIAL: credential, DEPLOY_API_URL: "http://ignored.example" });
    expect(ctx.apiUrl).toBe("https://deploy.example");
    expect(ctx.credential?.projectSlug).toBe("coral-birch-nkc37");
    expect(context({ DEPLOY_CREDENTIAL: credential }, "https://deploy.example").apiUrl).toBe(
      "https://deploy.example",
    );
    expect(context({ DEPLOY_CREDENTIAL: "  " }).credential).toBeUndefined();
    let error: unknown;
    try {
      context({ DEPLOY_CREDENTIAL: credential }, "http://other.example");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      "--api-url http://other.example is not the API of DEPLOY_CREDENTIAL's project (https://deploy.example/)",
    );
    expect((error as UsageError).hint).toBe("Leave --api-url out, or unset DEPLOY_CREDENTIAL.");
  });

  it("createContext: progress is live only on a terminal outside CI", () => {
    const drawn = (env: Record<string, string>, isTTY: boolean) => {
      const stderr = { isTTY, text: [] as string[] };
      createContext(io(env, stderr), readSettings({}), undefined, false).progress.step("Working");
      const text = stderr.text.join("");
      stderr.text.length = 0;
      return text;
    };
    expect(drawn({}, true)).toContain("Working…");
    expect(drawn({ CI: "true" }, true)).toBe("");
    expect(drawn({}, false)).toBe("");
  });

  it("retryNote: the failure, the wait and the attempt to come, on a line of its own", () => {
    const lines: string[] = [];
    const progress = createProgress({ write: (text: string) => lines.push(text) }, false);
    retryNote(progress)({
      attempt: 2,
      maxAttempts: 6,
      delayMs: 1500,
      error: new Error("could not read: reset"),
    });
    expect(lines).toEqual(["could not read: reset — retrying in 1.5s (attempt 3 of 6)\n"]);
  });

  it("openFolder: a config folder inside the site folder, or the site folder itself, is CONFIG_INSIDE", async () => {
    for (const config of [join(root, "site", "config"), join(root, "site")]) {
      const ctx = createContext(
        io({ DEPLOY_CONFIG_DIR: config }),
        readSettings({}),
        "http://127.0.0.1:1",
        false,
      );
      const error = await refusal(openFolder(ctx, "site", { lock: false }));
      expect(error.code).toBe("CONFIG_INSIDE");
      expect(error.message).toBe(`the config folder ${config} is inside ${join(root, "site")}`);
      expect(error.hint).toBe("Set DEPLOY_CONFIG_DIR elsewhere.");
    }
    // A sibling whose name starts with the folder's is not inside it.
    const ctx = createContext(
      io({ DEPLOY_CONFIG_DIR: `${join(root, "site")}-config` }),
      readSettings({}),
      "http://127.0.0.1:1",
      false,
    );
    const folder = await openFolder(ctx, "site", { lock: false });
    expect(folder.realDir).toBe(join(root, "site"));
    await folder.release();
  });

  it("openFolder: under a credential, its project and identity, whatever the folder; nothing is remembered", async () => {
    const ctx = context({ DEPLOY_CREDENTIAL: encodeCredential(CREDENTIAL) });
    const folder = await openFolder(ctx, "site", { lock: true });
    expect(folder.fromCredential).toBe(true);
    expect(folder.identityHash).toBe("a".repeat(64));
    expect(folder.saved).toEqual({
      projectSlug: "coral-birch-nkc37",
      apiToken: "sdp_secret",
      apiUrl: "https://deploy.example",
      dir: join(root, "site"),
      productionUrl: "",
      createdAt: "",
    });
    expect(folder.api.identityFields).toEqual({
      projectHash: "a".repeat(64),
      anonFingerprint: "b".repeat(64),
    });
    await folder.savedProjects.put("c".repeat(64), folder.saved!);
    expect(await folder.savedProjects.findBySlug(ctx.apiUrl, "coral-birch-nkc37")).toBeUndefined();
    await folder.release();
    const handle = await openProject(ctx, "no-such-folder", { lock: false });
    expect([handle.project.projectSlug, handle.project.dir, handle.folder]).toEqual([
      "coral-birch-nkc37",
      "",
      undefined,
    ]);
  });

  it("openProject: a folder never deployed is NO_PROJECT saying to deploy it first, and its lock is let go", async () => {
    const ctx = context({}, "http://127.0.0.1:1");
    const error = await refusal(openProject(ctx, "site", { lock: true }));
    expect(error.code).toBe("NO_PROJECT");
    expect(error.message).toBe(`no project for ${join(root, "site")} on http://127.0.0.1:1`);
    expect(error.hint).toBe(
      "Deploy the folder first with `deploy <dir>` (and the same --api-url), or set DEPLOY_CREDENTIAL.",
    );
    // The lock was let go: taking it again does not wait.
    const again = await openFolder({ ...ctx, settings: { ...ctx.settings, lockWaitSeconds: 0 } }, "site", {
      lock: true,
    });
    await again.release();
    const folder = await openFolder(ctx, "site", { lock: false });
    expect(() => requireSavedProject(folder, "http://x")).toThrow(
      `no project for ${join(root, "site")} on http://x`,
    );
  });
  it("openFolder: a folder of this machine carries its own identity, not a credential's; its saved project is required as it is", async () => {
    const ctx = context({}, "http://127.0.0.1:1");
    const folder = await openFolder(ctx, "site", { lock: false });
    expect(folder.fromCredential).toBe(false);
    expect(folder.api.identityFields.projectHash).toBe(folder.identityHash);
    expect(folder.api.identityFields.anonFingerprint).toMatch(/^[0-9a-f]{64}$/);
    const saved = {
      projectSlug: "s",
      apiToken: "t",
      apiUrl: "http://x",
      dir: "/d",
      productionUrl: "",
      createdAt: "",
    };
    expect(requireSavedProject({ ...folder, saved }, "http://x")).toBe(saved);
    await folder.release();
  });

  it("createContext: a credential's API URL loses all its trailing slashes, and the same --api-url is accepted", () => {
    const credential = encodeCredential({ ...CREDENTIAL, apiUrl: "https://deploy.example//" });
    expect(context({ DEPLOY_CREDENTIAL: credential }).apiUrl).toBe("https://deploy.example");
    expect(context({ DEPLOY_CREDENTIAL: credential }, "https://deploy.example").apiUrl).toBe(
      "https://deploy.example",
    );
  });
});
