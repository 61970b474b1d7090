import { beforeEach, describe, expect, it } from "vitest";
import { runCliIn } from "./test-api.js";
import { type Scratch, useScratchRoot } from "./test-project.js";

// The explanation after the first line, wrapped at 96 columns as the help is.
const HOW_LINES = [
  "A project is its folder: the first `deploy <dir>` creates it, and this machine keeps its token",
  "in the config folder (DEPLOY_CONFIG_DIR). On another machine or in CI, set DEPLOY_CREDENTIAL to",
  "what `deploy credential --dir <dir>` prints; `deploy status --dir <dir>` shows a folder's",
  "project.",
];

const FIRST = {
  login: "There are no accounts here, so there is nothing to log in to.",
  logout: "There are no accounts here, so there is nothing to log out of.",
  whoami: "There are no accounts here: nobody is logged in, and nobody needs to be.",
};

const root = useScratchRoot("accounts-command-");
let scratch: Scratch;
beforeEach(async () => {
  scratch = await root.scratch();
});

describe("accounts", () => {
  it("accounts: login, logout and whoami each say there are no accounts, then what names a project, and exit 0", async () => {
    for (const kind of ["login", "logout", "whoami"] as const) {
      const run = await runCliIn(scratch.site, [kind], scratch.env);
      expect(run).toEqual({ code: 0, stdout: `${[FIRST[kind], ...HOW_LINES].join("\n")}\n`, stderr: "" });
    }
  });

  it("accounts: the explanation is wrapped at 96 columns, its words unchanged", async () => {
    const lines = (await runCliIn(scratch.site, ["whoami"], scratch.env)).stdout.trimEnd().split("\n");
    expect(lines.slice(1).every((line) => line.length <= 96 && line === line.trim())).toBe(true);
    expect(lines.slice(1).join(" ")).toBe(HOW_LINES.join(" "));
  });

  it("accounts: --json prints { accounts: false, message } with the whole text on one line", async () => {
    for (const kind of ["login", "logout", "whoami"] as const) {
      const run = await runCliIn(scratch.site, [kind, "--json"], scratch.env);
      expect([run.code, run.stderr]).toEqual([0, ""]);
      expect(run.stdout.endsWith("}\n")).toBe(true);
      expect(JSON.parse(run.stdout)).toEqual({
        accounts: false,
        message: `${FIRST[kind]} ${HOW_LINES.join(" ")}`,
      });
    }
  });
});
