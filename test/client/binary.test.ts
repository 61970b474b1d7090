import { readFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/build.js";
import { edgeGet, runBinary, startTestBed, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  ensureBuilt();
  bed = await startTestBed();
}, 120_000);
afterAll(async () => {
  await bed?.stop();
});

describe("the deploy binary", () => {
  it("deploy --version: prints package.json's version", async () => {
    const { version } = JSON.parse(
      await readFile(new URL("../../package.json", import.meta.url), "utf8"),
    ) as {
      version: string;
    };
    const run = await runBinary(["--version"], bed.env);
    expect(run).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("deploy --help: documents the commands, options and environment; each command has its own", async () => {
    const main = await runBinary(["--help"], bed.env);
    expect(main.code).toBe(0);
    for (const word of [
      "deploy [dir]",
      "domain <hostname>",
      "--reset",
      "delete",
      "--yes",
      "--api-url",
      "--json",
    ]) {
      expect(main.stdout).toContain(word);
    }
    for (const name of [
      "DEPLOY_API_URL",
      "DEPLOY_CONFIG_DIR",
      "DEPLOY_MAX_FILES",
      "DEPLOY_MAX_FILE_BYTES",
      "DEPLOY_HASH_THREAD_MIN_FILES",
      "DEBUG",
    ]) {
      expect(main.stdout).toContain(name);
    }
    expect((await runBinary(["domain", "--help"], bed.env)).stdout).toContain("CNAME");
    expect((await runBinary(["delete", "--help"], bed.env)).stdout).toContain("--yes");
  });

  it("deploy: a 100-file site through the binary (hashed on worker threads); stdout is only the JSON", async () => {
    const site = join(bed.dir, "hundred");
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 100; i++) files[`dir-${i % 7}/file-${i}.txt`] = randomBytes(500 + i);
    await writeSite(site, files);
    // Threads start from 2,000 files by default; 64 puts this site on them.
    const env = { ...bed.env, DEPLOY_HASH_THREAD_MIN_FILES: "64" };
    const run = await runBinary([site, "--json"], env);
    expect(run.stderr).not.toContain("Error");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { productionUrl: string; files: number; uploaded: number };
    expect(result).toMatchObject({ files: 100, uploaded: 100 });
    for (const [path, content] of Object.entries(files).slice(0, 10)) {
      expect((await edgeGet(bed.server.urls.edge, result.productionUrl, path)).body.equals(content)).toBe(
        true,
      );
    }
    const again = await runBinary(["--json"], env, site);
    expect(JSON.parse(again.stdout)).toMatchObject({ files: 100, uploaded: 0 });
  });

  it("deploy: exit 2 on an unknown flag, exit 1 on failure, a stack trace only with DEBUG=1", async () => {
    expect((await runBinary(["--nope"], bed.env)).code).toBe(2);
    const down = { ...bed.env, DEPLOY_API_URL: "http://127.0.0.1:1", DEPLOY_MAX_ATTEMPTS: "1" };
    const site = join(bed.dir, "hundred");
    const plain = await runBinary([site], down);
    expect(plain.code).toBe(1);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await runBinary([site], { ...down, DEBUG: "1" });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
