import { createServer, type Server } from "node:http";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run.js";
import { helpText } from "./help.js";
import { encodeCredential } from "../local/credential.js";
import type { CliIo } from "../io.js";
import { publicProject } from "./test-fixtures.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cli-run-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process in the scratch folder; `failWrites` stdout writes throw first. */
async function run(
  argv: string[],
  env: Record<string, string> = {},
  options: Partial<CliIo> & { failWrites?: number } = {},
): Promise<Run> {
  let stdout = "";
  let stderr = "";
  let failures = options.failWrites ?? 0;
  const code = await runCli(argv, {
    stdout: {
      write: (text: string) => {
        if (failures > 0) {
          failures--;
          throw new Error("stdout is closed");
        }
        stdout += text;
      },
      isTTY: false,
    },
    stderr: options.stderr ?? { write: (text: string) => (stderr += text), isTTY: false },
    env: { DEPLOY_CONFIG_DIR: join(dir, "config"), ...env },
    cwd: dir,
  });
  return { code, stdout, stderr };
}

const VERSION = (
  JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("runCli", () => {
  it("runCli: --help and help <command> print that help on stdout and exit 0", async () => {
    expect(await run(["--help"])).toEqual({ code: 0, stdout: helpText(undefined), stderr: "" });
    expect(await run(["help", "status"])).toEqual({ code: 0, stdout: helpText("status"), stderr: "" });
  });

  it("runCli: --version prints package.json's version; with --json before any -- as { version }", async () => {
    expect(await run(["--version"])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
    expect(await run(["--version", "--json"])).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ version: VERSION })}\n`,
      stderr: "",
    });
    expect((await run(["-v", "--", "--json"])).stdout).toBe(`${VERSION}\n`);
  });

  it("runCli: a usage error goes to stderr with its hint and exits 2; --json also prints it on stdout", async () => {
    expect(await run(["--bogus"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'Error: unknown option --bogus for "deploy"\nRun `deploy --help`.\n',
    });
    const json = await run(["--json", "--bogus"]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: "USAGE", message: 'unknown option --bogus for "deploy"' },
    });
    expect(json.stderr).toContain("Error: unknown option --bogus");
    // After `--` the word is a folder's name, not the option.
    expect((await run(["--bogus", "--", "--json"])).stdout).toBe("");
  });

  it("runCli: a parsed --json decides JSON, not a --json word after --", async () => {
    const missing = await run(["--json", "--", "no-such-folder"]);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.code).toBe("NO_FOLDER");
    const plain = await run(["--", "--json"]);
    expect([plain.code, plain.stdout]).toEqual([1, ""]);
    expect(plain.stderr).toMatch(/^Error: folder not found: .*--json\n/);
  });

  it("runCli: deploy of a missing folder named like a command is a mistyped command; a path or --dir stays NO_FOLDER", async () => {
    const typo = await run(["stauts"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe(
      'Error: unknown command "stauts" (and no folder of that name)\nDid you mean `deploy status`?\n',
    );
    const path = await run(["./stauts"]);
    expect(path.code).toBe(1);
    expect(path.stderr).toMatch(/^Error: folder not found: .*stauts\nCheck the path/);
    const byDir = await run(["--dir", "stauts"]);
    expect(byDir.code).toBe(1);
    expect(byDir.stderr).toMatch(/^Error: folder not found: /);
    const far = await run(["website"]);
    expect([far.code, far.stderr.split("\n")[0]]).toEqual([
      1,
      `Error: folder not found: ${join(dir, "website")}`,
    ]);
  });

  it("runCli: a file named like a command is NOT_A_FOLDER, not a mistyped command", async () => {
    await writeFile(join(dir, "lst"), "not a folder");
    const file = await run(["lst"]);
    expect(file.code).toBe(1);
    expect(file.stderr).toBe(
      `Error: not a folder: ${join(dir, "lst")}\nGive the folder that holds the site.\n`,
    );
  });

  it("runCli: deploy --prod says production is the default before anything else", async () => {
    const { code, stderr } = await run(["--prod", "nowhere-at-all"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^Note: production is the default here, so --prod changes nothing; `deploy --preview` deploys without touching production\.\nError: folder not found: /,
    );
  });

  it("runCli: an error without a hint is one line", async () => {
    expect(await run(["a", "--dir", "b"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'Error: give the folder once: "a" and --dir "b"\n',
    });
  });

  it("runCli: DEBUG=1 or DEBUG=true adds the stack trace to a CliError; other values do not", async () => {
    for (const debug of ["1", "true"]) {
      const { stderr } = await run(["nowhere-at-all"], { DEBUG: debug });
      expect(stderr).toMatch(
        /^Error: folder not found: .*\nCheck the path, e\.g\. `deploy \.\/dist`\.\nCliError: folder not found.*\n {4}at /s,
      );
    }
    const { stderr } = await run(["nowhere-at-all"], { DEBUG: "0" });
    expect(stderr.split("\n")).toHaveLength(3);
  });

  it("runCli: an unexpected failure says so, with the DEBUG hint, or its stack with DEBUG=1; --json prints INTERNAL", async () => {
    const plain = await run(["--help"], {}, { failWrites: 1 });
    expect(plain).toEqual({
      code: 1,
      stdout: "",
      stderr: "Error: unexpected failure: stdout is closed\nRun again with DEBUG=1 for details.\n",
    });
    const json = await run(["--help", "--json"], {}, { failWrites: 1 });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: "INTERNAL", message: "unexpected failure: stdout is closed" },
    });
    const debug = await run(["--help"], { DEBUG: "1" }, { failWrites: 1 });
    expect(debug.stderr).toMatch(
      /^Error: unexpected failure: stdout is closed\nError: stdout is closed\n {4}at /,
    );
  });

  it("runCli: the Error label is red on a terminal", async () => {
    let stderr = "";
    await run(["--bogus"], {}, { stderr: { write: (text: string) => (stderr += text), isTTY: true } });
    expect(stderr.startsWith("\u001b[31mError:\u001b[39m unknown option")).toBe(true);
  });

  describe("with a server that refuses the project", () => {
    let server: Server;
    let apiUrl: string;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { code: "PROJECT_NOT_FOUND", message: "no such project" } }));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      apiUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it("runCli: DEBUG=1 shows an API error's request and answer; without it they stay hidden", async () => {
      const credential = encodeCredential({
        apiUrl,
        projectSlug: "gone-project-abc12",
        apiToken: "sdp_token",
        projectHash: "a".repeat(64),
        anonFingerprint: "b".repeat(64),
      });
      const env = { DEPLOY_CREDENTIAL: credential, DEPLOY_MAX_ATTEMPTS: "1" };
      const quiet = await run(["status"], env);
      expect(quiet.code).toBe(1);
      expect(quiet.stderr).not.toContain("answered 404");
      const debug = await run(["status"], { ...env, DEBUG: "1" });
      expect(debug.stderr).toContain(`${apiUrl}/`);
      expect(debug.stderr).toMatch(/answered 404 PROJECT_NOT_FOUND: no such project\n/);
    });
  });

  describe("with a server that knows the project", () => {
    let server: Server;
    let env: Record<string, string>;
    beforeAll(async () => {
      const project = publicProject({
        createdAt: "2026-11-01T09:00:00.000Z",
        expiresAt: "2099-01-01T00:00:00.000Z",
      });
      const revisions = [
        {
          revisionId: "rev0000001",
          createdAt: "2026-11-20T08:30:00.000Z",
          files: 1,
          bytes: 10,
          production: true,
          preview: false,
          revisionUrl: "https://rev0000001--calm-river-abc12.sites.test/",
          message: null,
        },
      ];
      server = createServer((request, response) => {
        const known = request.method === "POST" && request.url === "/projects/calm-river-abc12/state";
        response.writeHead(known ? 200 : 404, { "content-type": "application/json" });
        response.end(
          JSON.stringify(known ? { project, revisions } : { error: { code: "NOT_FOUND", message: "no" } }),
        );
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      env = {
        DEPLOY_MAX_ATTEMPTS: "1",
        DEPLOY_CREDENTIAL: encodeCredential({
          apiUrl: `http://127.0.0.1:${port}`,
          projectSlug: "calm-river-abc12",
          apiToken: "sdp_token",
          projectHash: "a".repeat(64),
          anonFingerprint: "b".repeat(64),
        }),
      };
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    it("runCli: status prints the project's state and list its revisions, each with exit 0", async () => {
      const status = await run(["status"], env);
      expect([status.code, status.stderr]).toEqual([0, ""]);
      expect(status.stdout.split("\n")[0]).toBe("Project calm-river-abc12");
      const list = await run(["list"], env);
      expect([list.code, list.stderr]).toEqual([0, ""]);
      expect(list.stdout.split("\n")[0]).toMatch(/^ +REVISION +DEPLOYED/);
    });
  });
});
