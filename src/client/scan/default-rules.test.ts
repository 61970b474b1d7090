import ignore from "ignore";
import { describe, expect, it } from "vitest";
import { defaultRules } from "./default-rules.js";
import { DEFAULT_IGNORES, DOTFILE_RULES } from "./walk.js";

/** Names that the rules treat specially, in several letter cases, and ordinary ones. */
const NAMES = [
  ".git",
  ".GIT",
  "node_modules",
  "Node_Modules",
  ".DS_Store",
  ".ds_store",
  ".deployignore",
  ".DeployIgnore",
  ".static-deploy.json",
  ".Static-Deploy.JSON",
  ".well-known",
  ".Well-Known",
  ".env",
  ".x",
  "a",
  "index.html",
  "git",
  "node_modules2",
  "DS_Store",
  "well-known",
  "x.deployignore",
  "..x",
];

/** Every path of one to three of NAMES, as a file and as a folder. */
function allPaths(): string[] {
  const paths: string[] = [];
  const grow = (prefix: string, depth: number) => {
    for (const name of NAMES) {
      const path = prefix + name;
      paths.push(path, `${path}/`);
      if (depth < 3) grow(`${path}/`, depth + 1);
    }
  };
  grow("", 1);
  return paths;
}

describe("defaultRules", () => {
  it("defaultRules: decides as the ignore package does with the default and dotfile rules, on every path of the corpus", () => {
    const paths = allPaths();
    expect(paths.length).toBeGreaterThan(16_000);
    const withDotfileRules = ignore().add(DEFAULT_IGNORES).add(DOTFILE_RULES);
    const withoutDotfileRules = ignore().add(DEFAULT_IGNORES);
    const fast = defaultRules(false);
    const fastWithDotfiles = defaultRules(true);
    const differ = paths.filter(
      (path) =>
        fast.ignores(path) !== withDotfileRules.ignores(path) ||
        fastWithDotfiles.ignores(path) !== withoutDotfileRules.ignores(path),
    );
    expect(differ).toEqual([]);
  });

  it("defaultRules: ignoresEntry decides as ignores does for every corpus path whose folders above are kept", () => {
    for (const includeDotfiles of [false, true]) {
      const rules = defaultRules(includeDotfiles);
      const kept = (path: string) =>
        path
          .split("/")
          .slice(0, -1)
          .every((_, i, above) => !rules.ignores(`${above.slice(0, i + 1).join("/")}/`));
      const checked = allPaths().filter((path) => kept(path.endsWith("/") ? path.slice(0, -1) : path));
      expect(checked.length).toBeGreaterThan(1_000);
      const differ = checked.filter((path) => {
        const isFolder = path.endsWith("/");
        const segments = (isFolder ? path.slice(0, -1) : path).split("/");
        const entry = rules.ignoresEntry!(segments[segments.length - 1]!, segments.length === 1, isFolder);
        return entry !== rules.ignores(path);
      });
      expect(differ).toEqual([]);
    }
  });

  it("defaultRules: keeps .well-known/ and what is in it, skips dotfiles inside it and a nested .well-known", () => {
    const rules = defaultRules(false);
    expect(rules.ignores(".well-known/")).toBe(false);
    expect(rules.ignores(".well-known/security.txt")).toBe(false);
    expect(rules.ignores(".well-known/.hidden")).toBe(true);
    expect(rules.ignores(".well-known")).toBe(true);
    expect(rules.ignores("docs/.well-known/")).toBe(true);
    expect(rules.ignores(".env")).toBe(true);
    expect(defaultRules(true).ignores(".env")).toBe(false);
    expect(defaultRules(true).ignores("a/.git/")).toBe(true);
  });
});
