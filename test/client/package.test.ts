import { execFile, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeGet, startTestBed, writeSite, type TestBed, type CliRun } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

let bed: TestBed;
let scratch: string;
let prefix: string;
/** A copy of the checkout as git has it (no dist/ of either package), with its node_modules. */
let copy: string;
/** packages/client of the copy, where `npm pack` runs. */
let copyPackage: string;
let bundleBeforePack: boolean;
let packed: { filename: string; files: { path: string }[] };
// npm's own settings from the `npm test` that runs us (a prefix, a global flag) must not leak in.
const npmEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith("npm_")),
);

/** Runs a program to its end; returns its status and output. */
function attempt(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return spawnSync(command, args, { encoding: "utf8", timeout: 120_000, ...options });
}

/** Runs a program to its end; throws with its output when it fails. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const result = attempt(command, args, options);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.status}):\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

/** Copies the files git tracks or would track (not the ignored dist/, data/, …) to `target`. */
function copyCheckout(target: string): void {
  const listed = run("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: ROOT });
  for (const path of listed.split("\0")) {
    if (path !== "" && existsSync(join(ROOT, path))) cpSync(join(ROOT, path), join(target, path));
  }
  symlinkSync(join(ROOT, "node_modules"), join(target, "node_modules"));
}

/**
 * Runs the installed `deploy` as a person would: by its name on PATH, and nothing else there. Not
 * spawnSync: the server runs in this process and must answer meanwhile.
 */
function deploy(argv: string[], env: Record<string, string>): Promise<CliRun> {
  const path = `${join(prefix, "bin")}:${dirname(process.execPath)}:/usr/bin:/bin`;
  return new Promise((resolve) => {
    execFile("deploy", argv, { env: { ...env, PATH: path }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "client-package-"));
  prefix = join(scratch, "prefix");
  copy = join(scratch, "repo");
  copyPackage = join(copy, "packages/client");
  copyCheckout(copy);
  // No build first: `npm pack` builds the bundle itself (prepack), as a newcomer would run it.
  bundleBeforePack = existsSync(join(copyPackage, "dist/deploy.js"));
  packed = JSON.parse(
    run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: copyPackage, env: npmEnv }),
  )[0];
  run(
    "npm",
    ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", join(scratch, packed.filename)],
    {
      cwd: scratch,
      env: npmEnv,
    },
  );
  bed = await startTestBed();
}, 240_000);
afterAll(async () => {
  await bed?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("the standalone client package", () => {
  it("npm pack: the tarball holds package.json, one bundled file and the README, and no dependency but the optional native BLAKE3", () => {
    expect(bundleBeforePack).toBe(false);
    expect(packed.files.map((file) => file.path).sort()).toEqual([
      "README.md",
      "dist/deploy.js",
      "package.json",
    ]);
    const manifest = JSON.parse(readFileSync(join(copyPackage, "package.json"), "utf8"));
    expect(manifest.dependencies).toBeUndefined();
    expect(Object.keys(manifest.optionalDependencies)).toEqual(["@napi-rs/blake-hash"]);
    // Its one script builds the bundle when packing; none runs when the tarball is installed.
    expect(manifest.scripts).toEqual({ prepack: "node ../../scripts/build-client.mjs" });
    const installed = join(prefix, "lib/node_modules/static-deploy-client");
    expect(readdirSync(installed).sort()).toEqual(["README.md", "dist", "node_modules", "package.json"]);
    // The binary for this platform only, with no install script (nothing is compiled).
    const natives = readdirSync(join(installed, "node_modules/@napi-rs")).sort();
    expect(natives[0]).toBe("blake-hash");
    expect(natives.slice(1)).toEqual([
      expect.stringMatching(`^blake-hash-${process.platform}-${process.arch}-`),
    ]);
    // What src/core/blake3.ts loads, resolved from the bundle as it does at run time.
    const fromBundle = createRequire(join(installed, "dist/deploy.js"));
    expect(fromBundle.resolve("@napi-rs/blake-hash")).toContain(join(installed, "node_modules"));
  });

  it("npm pack: refuses to pack when the bundle does not build, even with an older bundle in dist/", () => {
    expect(existsSync(join(copyPackage, "dist/deploy.js"))).toBe(true);
    writeFileSync(join(copy, "src/client/bundle-entry.ts"), "this is not TypeScript (\n");
    const destination = join(scratch, "refused");
    mkdirSync(destination);
    const result = attempt("npm", ["pack", "--pack-destination", destination], {
      cwd: copyPackage,
      env: npmEnv,
    });
    expect(result.status, result.stdout).not.toBe(0);
    expect(result.stderr).toContain("bundle-entry.ts");
    expect(readdirSync(destination)).toEqual([]);
    expect(existsSync(join(copyPackage, "dist/deploy.js"))).toBe(false);
  });

  it("npm i -g <tarball>: `deploy --version` and `deploy --help` from an empty prefix", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    expect(await deploy(["--version"], bed.env)).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    const help = await deploy(["--help"], bed.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("deploy rollback [revision]");
  });

  it("npm i -g <tarball>: the installed deploy deploys a folder against the server, hashing on threads from the one file", async () => {
    const site = join(bed.dir, "packaged-site");
    const files: Record<string, string> = { "index.html": "<h1>from the package</h1>" };
    for (let i = 0; i < 40; i++) files[`assets/file-${i}.txt`] = `asset ${i}`;
    await writeSite(site, files);
    // Threads from the first file: each runs the bundle itself as a hashing worker.
    const env = { ...bed.env, DEPLOY_HASH_THREADS: "2", DEPLOY_HASH_THREAD_MIN_FILES: "1" };
    const first = await deploy([site, "--json"], env);
    expect(first.code, first.stderr).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result.files).toBe(41);
    for (const [path, content] of Object.entries(files)) {
      const served = await edgeGet(bed.server.urls.edge, result.productionUrl, path);
      expect(served.body.toString(), path).toBe(content);
    }
    const status = await deploy(["status", "--dir", site, "--json"], env);
    expect(JSON.parse(status.stdout)).toMatchObject({
      projectSlug: result.projectSlug,
      revisionId: result.revisionId,
    });
  });
});
