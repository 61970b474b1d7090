import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliError } from "../errors.js";
import { walkSite } from "./walk.js";

let base: string;
let root: string;

async function put(path: string, content = "x"): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "walk-")));
  root = join(base, "site");
  await mkdir(root);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const paths = async () => (await walkSite(root)).map((file) => file.path);

describe("walkSite", () => {
  it("walkSite: lists nested files sorted, with / separators, sizes and inodes", async () => {
    await put("index.html", "<h1>");
    await put("a/b/c.txt", "hello");
    await put("a/ünïcode name.txt");
    const files = await walkSite(root);
    expect(files.map((file) => file.path)).toEqual(["a/b/c.txt", "a/ünïcode name.txt", "index.html"]);
    expect(files[0]).toMatchObject({ absPath: join(root, "a/b/c.txt"), size: 5 });
    expect(files[0]!.ino).toBeGreaterThan(0);
  });

  it("walkSite: lists in the order of whole paths, a folder's files against names that sort before /", async () => {
    for (const path of [
      "a/x",
      "a-b",
      "a.b",
      "a b",
      "ab/y",
      "A/z",
      "a0",
      "b/c/d",
      "b/c-d",
      "b/c.d",
      "f/x",
      "f-b/y",
      "f.b/z",
    ])
      await put(path);
    await symlink(join(root, "b"), join(root, "l"));
    await put("l-x");
    await symlink("a0", join(root, "l.f"));
    const listed = await paths();
    expect(listed).toEqual([...listed].sort());
    expect(listed).toEqual(
      [
        "A/z",
        "a b",
        "a-b",
        "a.b",
        "a/x",
        "a0",
        "ab/y",
        "b/c-d",
        "b/c.d",
        "b/c/d",
        "f-b/y",
        "f.b/z",
        "f/x",
      ].concat(["l-x", "l.f", "l/c-d", "l/c.d", "l/c/d"]),
    );
  });

  it("walkSite: skips .git, node_modules and .DS_Store at any depth, and .deployignore itself", async () => {
    await put("index.html");
    await put(".git/HEAD");
    await put("node_modules/x/index.js");
    await put("deep/node_modules/y.js");
    await put("deep/.DS_Store");
    await put(".deployignore", "");
    await put("deep/.deployignore");
    // With dotfiles asked for, these are still skipped; only the top .deployignore is the ignore file.
    const all = await walkSite(root, { includeDotfiles: true });
    expect(all.map((file) => file.path)).toEqual(["deep/.deployignore", "index.html"]);
  });

  it("walkSite: skips dotfiles and dot-folders but .well-known/, and names what it skipped for that reason only", async () => {
    await put("index.html");
    await put(".env", "SECRET=1");
    await put(".cache/data.bin");
    await put("sub/.npmrc");
    await put(".well-known/security.txt");
    await put(".git/HEAD");
    await put(".deployignore", "");
    const skippedDotfiles: string[] = [];
    const files = await walkSite(root, { skippedDotfiles });
    expect(files.map((file) => file.path)).toEqual([".well-known/security.txt", "index.html"]);
    // .git and .deployignore are skipped whatever the option: they are not named as dotfiles.
    expect(skippedDotfiles.sort()).toEqual([".cache/", ".env", "sub/.npmrc"]);
  });

  it("walkSite: --include-dotfiles, or a ! rule in .deployignore, brings dotfiles back", async () => {
    await put("index.html");
    await put(".env");
    await put(".htaccess");
    expect((await walkSite(root, { includeDotfiles: true })).map((file) => file.path)).toEqual([
      ".env",
      ".htaccess",
      "index.html",
    ]);
    await put(".deployignore", "!.htaccess\n");
    const skippedDotfiles: string[] = [];
    expect((await walkSite(root, { skippedDotfiles })).map((file) => file.path)).toEqual([
      ".htaccess",
      "index.html",
    ]);
    expect(skippedDotfiles).toEqual([".env"]);
  });

  it("walkSite: honours .deployignore with gitignore syntax (globs, folders, negation)", async () => {
    await put(".deployignore", "*.map\ndrafts/\n/secret.txt\n!keep.map\n# comment\n");
    await put("app.js");
    await put("app.js.map");
    await put("keep.map");
    await put("drafts/post.html");
    await put("secret.txt");
    await put("sub/secret.txt");
    expect(await paths()).toEqual(["app.js", "keep.map", "sub/secret.txt"]);
  });

  it("walkSite: follows symlinks to files and folders inside the folder", async () => {
    await put("real/data.json", "{}");
    await symlink(join(root, "real"), join(root, "alias"));
    await symlink("real/data.json", join(root, "data-link.json"));
    const files = await walkSite(root);
    expect(files.map((file) => file.path)).toEqual(["alias/data.json", "data-link.json", "real/data.json"]);
    expect(files.find((file) => file.path === "data-link.json")!.size).toBe(2);
  });

  it("walkSite: refuses symlinks that leave the folder, naming them", async () => {
    await put("index.html");
    await writeFile(join(base, "outside.txt"), "secret");
    await symlink(join(base, "outside.txt"), join(root, "leak.txt"));
    await symlink(base, join(root, "up"));
    const error = await walkSite(root).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toContain("leak.txt");
    expect((error as CliError).message).toContain("up →");
    expect((error as CliError).message).toContain("outside the folder");
  });

  it("walkSite: refuses dangling links and loops, but not ignored links", async () => {
    await put("index.html");
    await symlink(join(root, "missing"), join(root, "dangling"));
    await mkdir(join(root, "sub"));
    await symlink(root, join(root, "sub/loop"));
    const message = ((await walkSite(root).catch((caught: unknown) => caught)) as Error).message;
    expect(message).toContain("dangling (its target does not exist)");
    expect(message).toContain("sub/loop");
    await put(".deployignore", "dangling\nsub/loop\n");
    expect(await paths()).toEqual(["index.html"]);
  });
});

describe("walkSite and .gitignore", () => {
  it("walkSite: skips what the site's .gitignore files ignore (each for its own folder) and names them", async () => {
    await put("index.html");
    await put(".gitignore", "secrets.json\ncoverage/\n");
    await put("secrets.json", '{"key":"k"}');
    await put("coverage/report.html");
    await put("sub/.gitignore", "*.log\n!keep.log\n");
    await put("sub/a.log");
    await put("sub/keep.log");
    await put("a.log");
    const skippedGitignored: string[] = [];
    const files = await walkSite(root, { skippedGitignored });
    expect(files.map((file) => file.path)).toEqual(["a.log", "index.html", "sub/keep.log"]);
    expect(skippedGitignored.sort()).toEqual(["coverage/", "secrets.json", "sub/a.log"]);
  });

  it("walkSite: a parent's .gitignore inside the same repository applies, but for its lines that ignore the site itself", async () => {
    root = join(base, "repo", "app", "dist");
    await mkdir(join(base, "repo", ".git"), { recursive: true });
    await mkdir(root, { recursive: true });
    await writeFile(join(base, "repo", ".gitignore"), "dist/\nsecrets.json\n");
    await writeFile(join(base, "repo", "app", ".gitignore"), "*.map\n");
    // Outside the repository: never read.
    await writeFile(join(base, ".gitignore"), "index.html\n");
    await put("index.html");
    await put("app.js.map");
    await put("app.js");
    await put("secrets.json");
    expect(await paths()).toEqual(["app.js", "index.html"]);
  });

  it("walkSite: a ! rule in .deployignore brings back a gitignored file", async () => {
    await put("index.html");
    await put(".gitignore", "*.json\n");
    await put("public.json");
    await put("secret.json");
    await put(".deployignore", "!public.json\n");
    expect(await paths()).toEqual(["index.html", "public.json"]);
  });
});

describe("walkSite's refusals", () => {
  const failure = async (): Promise<CliError> => {
    const error = await walkSite(root).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  };

  it("walkSite: a link's whole refusal names the folder, each link on a line, and the hint", async () => {
    await put("index.html");
    await mkdir(join(root, "sub"));
    await symlink(root, join(root, "sub/loop"));
    await symlink(join(root, "missing"), join(root, "dangling"));
    await mkdir(join(base, "site-other"));
    // A sibling whose name starts like the site's is still outside it.
    await symlink(join(base, "site-other"), join(root, "sibling"));
    const error = await failure();
    expect([error.code, error.message, error.hint]).toEqual([
      "BAD_SYMLINK",
      `cannot deploy ${root}: symbolic links that do not stay inside the folder:\n` +
        "  dangling (its target does not exist)\n" +
        `  sibling → ${join(base, "site-other")} (outside the folder)\n` +
        "  sub/loop → . (a loop: it points to a folder above it)",
      "Copy the files into the folder, or name the links in .deployignore.",
    ]);
  });

  it("walkSite: past twenty refused links, the first twenty named and the rest counted", async () => {
    for (let i = 10; i < 33; i++) await symlink(join(root, "missing"), join(root, `d${i}`));
    const lines = (await failure()).message.split("\n");
    expect(lines).toHaveLength(1 + 20 + 1);
    expect(lines[20]).toBe("  d29 (its target does not exist)");
    expect(lines[21]).toBe("  … and 3 more");
    await rm(join(root, "d32"));
    await rm(join(root, "d31"));
    expect((await failure()).message.split("\n")).toHaveLength(1 + 21);
    await rm(join(root, "d30"));
    expect((await failure()).message.split("\n")).toHaveLength(1 + 20);
  });

  it("walkSite: a link to a folder above, named from the site's top, is a loop; a link to the site itself too", async () => {
    await put("a/b/index.html");
    await symlink(join(root, "a"), join(root, "a/b/up"));
    await symlink(root, join(root, "top"));
    const message = (await failure()).message;
    expect(message).toContain("  a/b/up → a (a loop: it points to a folder above it)");
    expect(message).toContain("  top → . (a loop: it points to a folder above it)");
  });

  it("walkSite: links skipped by a folder rule or a .gitignore are not followed, and a gitignored one is named", async () => {
    await put("index.html");
    await put("real/data.json");
    await put(".deployignore", "drafts/\n");
    await put(".gitignore", "assets/\nlinked.json\n");
    await symlink(join(root, "missing"), join(root, "drafts"));
    await symlink(join(root, "real"), join(root, "assets"));
    await symlink(join(root, "real/data.json"), join(root, "linked.json"));
    const skippedGitignored: string[] = [];
    const files = await walkSite(root, { skippedGitignored });
    expect(files.map((file) => file.path)).toEqual(["index.html", "real/data.json"]);
    // The folder link is named as a folder, once its target is known to be one.
    expect(skippedGitignored.sort()).toEqual(["assets/", "linked.json"]);
  });

  it("walkSite: a folder that cannot be listed is READ_FAILED naming it, and an unreadable .deployignore IGNORE_FILE", async () => {
    const gone = join(base, "gone");
    const listing = await walkSite(gone).catch((caught: unknown) => caught);
    expect(listing).toBeInstanceOf(CliError);
    expect([(listing as CliError).code, (listing as CliError).hint]).toEqual([
      "READ_FAILED",
      "Check its permissions.",
    ]);
    expect((listing as CliError).message).toMatch(/^cannot read \.: ENOENT/);
    await mkdir(join(root, ".deployignore"));
    const ignoreFile = await failure();
    expect(ignoreFile.code).toBe("IGNORE_FILE");
    expect(ignoreFile.message).toMatch(new RegExp(`^cannot read ${join(root, ".deployignore")}: EISDIR`));
  });

  it("walkSite: a .deployignore of blank lines keeps the default rules", async () => {
    await put(".deployignore", "\n  \n");
    await put("index.html");
    await put(".env");
    await put("node_modules/x.js");
    const skippedDotfiles: string[] = [];
    expect((await walkSite(root, { skippedDotfiles })).map((file) => file.path)).toEqual(["index.html"]);
    expect(skippedDotfiles).toEqual([".env"]);
  });

  it("walkSite: sorts by path as code units, whatever order the folder lists them in", async () => {
    const names = ["b", "a", "B", "_", "a.b", "a-b", "aa", "Z", "é", "0"];
    for (const name of names) await put(name);
    expect(await paths()).toEqual([...names].sort());
  });

  it("walkSite: a socket is no file: neither listed nor named as skipped, nor a link to it", async () => {
    await put("index.html");
    await put(".gitignore", "ignored.sock\n");
    const servers = [createServer(), createServer()];
    await new Promise<void>((resolve) => servers[0]!.listen(join(root, "ignored.sock"), resolve));
    await new Promise<void>((resolve) => servers[1]!.listen(join(root, "plain.sock"), resolve));
    try {
      await symlink(join(root, "plain.sock"), join(root, "sock-link"));
      const skippedGitignored: string[] = [];
      expect((await walkSite(root, { skippedGitignored })).map((file) => file.path)).toEqual(["index.html"]);
      expect(skippedGitignored).toEqual([]);
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
