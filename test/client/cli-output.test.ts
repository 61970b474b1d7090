import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./helpers.js";

const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  }
).version;

describe("the client's own output", () => {
  it("deploy --version --json: one JSON object { version } on stdout, exit 0", async () => {
    for (const argv of [
      ["--version", "--json"],
      ["--json", "-v"],
    ]) {
      const run = await runInProcess(argv, {});
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ version: VERSION });
    }
    expect((await runInProcess(["--version"], {})).stdout).toBe(`${VERSION}\n`);
  });

  it("deploy --help: the option list names --include-dotfiles and --preview", async () => {
    const run = await runInProcess(["--help"], {});
    const options = run.stdout.slice(run.stdout.indexOf("Options"));
    expect(options).toMatch(/^ {2}--include-dotfiles {2}Deploy dotfiles and dot-folders too/m);
    expect(options).toMatch(/^ {2}--preview {11}Publish to the revision URL only/m);
  });
});
