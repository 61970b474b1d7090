import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { checkSiteRules } from "./site-rules-check.js";
import type { SiteFile } from "./walk-state.js";

let dir: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "site-rules-")));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes the rules files under `dir/<name>/` and lists them as a walk would. */
async function site(name: string, texts: Record<string, string | Buffer>): Promise<SiteFile[]> {
  const root = join(dir, name);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  const files: SiteFile[] = [];
  for (const [path, text] of Object.entries(texts)) {
    await writeFile(join(root, path), text);
    files.push({ path, absPath: join(root, path), size: Buffer.byteLength(text), mtimeMs: 0, ino: 0 });
  }
  return files;
}

async function refusal(cwd: string, files: SiteFile[]): Promise<CliError> {
  const error = await checkSiteRules(cwd, files).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CliError);
  expect((error as CliError).code).toBe("INVALID_SITE_CONFIG");
  return error as CliError;
}

describe("checkSiteRules", () => {
  it("checkSiteRules: valid files give their texts exactly, a BOM kept; no rules files give none", async () => {
    const redirects = "\uFEFF/old /new 301\n";
    const files = await site("valid", {
      _redirects: redirects,
      _headers: "/*\n  X-Frame-Options: DENY\n",
      "a.html": "x",
    });
    expect(await checkSiteRules(dir, files)).toEqual({ redirects, headers: "/*\n  X-Frame-Options: DENY\n" });
    expect(await checkSiteRules(dir, await site("none", { "index.html": "x" }))).toEqual({});
  });

  it("checkSiteRules: one wrong line is the message itself, file:line relative to the cwd", async () => {
    const files = await site("one", { _redirects: "/a /b 301\nnonsense\n" });
    const error = await refusal(dir, files);
    expect(error.message).toMatch(/^one\/_redirects:2: /);
    expect(error.message).not.toContain("\n");
    expect(error.hint).toBe(`Fix _redirects and deploy again (syntax: the README's "Site configuration").`);
  });

  it("checkSiteRules: from outside the site's folder, the file's absolute path; a whole-file problem has no line", async () => {
    const files = await site("outside", { _headers: Buffer.from([0xff, 0xfe, 0x00]) });
    const error = await refusal(join(dir, "elsewhere"), files);
    expect(error.message).toBe(`${join(dir, "outside", "_headers")}: not UTF-8 text`);
  });

  it("checkSiteRules: wrong lines of both files are all listed, counted, and both files named", async () => {
    const files = await site("both", { _redirects: "bad\nworse\n", _headers: "no-path-here\n" });
    const error = await refusal(dir, files);
    const lines = error.message.split("\n");
    expect(lines[0]).toBe("3 lines of the site's rules are wrong:");
    expect(lines.slice(1).map((line) => line.split(":").slice(0, 2).join(":"))).toEqual([
      "  both/_redirects:1",
      "  both/_redirects:2",
      "  both/_headers:1",
    ]);
    expect(error.hint).toBe(
      `Fix _redirects and _headers and deploy again (syntax: the README's "Site configuration").`,
    );
  });

  it("checkSiteRules: past fifty wrong lines, the first fifty named and the rest counted", async () => {
    const text = Array.from({ length: 53 }, (_, i) => `bad-${i}`).join("\n");
    const error = await refusal(dir, await site("many", { _redirects: text }));
    const lines = error.message.split("\n");
    expect(lines[0]).toBe("53 lines of the site's rules are wrong:");
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines[50]!.startsWith("  many/_redirects:50: ")).toBe(true);
    expect(lines[51]).toBe("  … and 3 more");
    const fifty = await refusal(
      dir,
      await site("fifty", { _redirects: text.split("\n").slice(0, 50).join("\n") }),
    );
    expect(fifty.message.split("\n")).toHaveLength(51);
  });

  it("checkSiteRules: a rules file that cannot be read fails with the file system's error, not as invalid rules", async () => {
    const files = await site("unreadable", { "index.html": "x" });
    const missing = { ...files[0]!, path: "_headers", absPath: join(dir, "unreadable", "_headers") };
    const error = await checkSiteRules(dir, [missing]).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(CliError);
    expect((error as NodeJS.ErrnoException).code).toBe("ENOENT");
  });
});
