import { describe, expect, it } from "vitest";
import type { SiteFile } from "../scan/walk-state.js";
import { dotfilesLine, gitignoredLine, unchangedLine } from "./scan-site.js";

const paths = (count: number) => Array.from({ length: count }, (_, i) => `.p${i + 1}`);
const file = (path: string, size: number): SiteFile => ({
  path,
  absPath: `/x/${path}`,
  size,
  mtimeMs: 0,
  ino: 0,
});

describe("scan-site lines", () => {
  it("dotfilesLine: names up to ten dotfiles, all of them when there are ten", () => {
    expect(dotfilesLine([".env"])).toBe(
      "Skipped 1 dotfile: .env (--include-dotfiles, or a ! rule in .deployignore, deploys them)",
    );
    expect(dotfilesLine(paths(10))).toBe(
      `Skipped 10 dotfiles: ${paths(10).join(", ")} (--include-dotfiles, or a ! rule in .deployignore, deploys them)`,
    );
  });

  it("dotfilesLine: past ten, names the first ten and counts the rest", () => {
    expect(dotfilesLine(paths(1012))).toBe(
      `Skipped 1,012 dotfiles: ${paths(10).join(", ")} and 1,002 more ` +
        "(--include-dotfiles, or a ! rule in .deployignore, deploys them)",
    );
  });

  it("gitignoredLine: names up to ten paths, then counts the rest", () => {
    expect(gitignoredLine(["secrets.json"])).toBe(
      "Skipped 1 path a .gitignore ignores: secrets.json (a ! rule in .deployignore deploys one)",
    );
    expect(gitignoredLine(paths(10))).toBe(
      `Skipped 10 paths a .gitignore ignores: ${paths(10).join(", ")} (a ! rule in .deployignore deploys one)`,
    );
    expect(gitignoredLine(paths(11))).toBe(
      `Skipped 11 paths a .gitignore ignores: ${paths(10).join(", ")} and 1 more (a ! rule in .deployignore deploys one)`,
    );
  });

  it("unchangedLine: counts the files and adds their sizes", () => {
    expect(unchangedLine([file("a", 1000), file("b", 1048)])).toBe(
      "2 files (2.0 KiB) unchanged since the last deploy: none read again",
    );
    expect(unchangedLine([file("a", 3)])).toBe(
      "1 file (3 B) unchanged since the last deploy: none read again",
    );
  });
});
