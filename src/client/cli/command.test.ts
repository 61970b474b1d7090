import { describe, expect, it } from "vitest";
import { commandContext, defineCommand } from "./command.js";
import type { CliIo } from "../io.js";

/** An io with `env`, writing nowhere. */
function io(env: Record<string, string>): CliIo {
  return { stdout: { write: () => true }, stderr: { write: () => true }, env, cwd: "/" };
}

describe("command", () => {
  it("defineCommand: returns the declaration itself", () => {
    const spec = {
      name: "hello",
      flags: [],
      usage: [["deploy hello", "Says hello"]] as const,
      help: "Usage: deploy hello\n",
      parse: () => ({ kind: "hello" as const }),
      run: async () => {},
    };
    expect(defineCommand(spec)).toBe(spec);
  });

  it("commandContext: the --api-url and --json given, and the settings the environment sets", async () => {
    const env = {
      DEPLOY_MAX_ATTEMPTS: "4",
      DEPLOY_LOCK_WAIT_SECONDS: "7",
      DEPLOY_API_URL: "http://env.test",
    };
    const cli = io(env);
    const ctx = await commandContext(cli, { apiUrl: "http://flag.test", json: true, dir: "." });
    expect(ctx.io).toBe(cli);
    expect([ctx.apiUrl, ctx.json, ctx.credential]).toEqual(["http://flag.test", true, undefined]);
    expect([ctx.retry.maxAttempts, ctx.settings.maxAttempts, ctx.settings.lockWaitSeconds]).toEqual([
      4, 4, 7,
    ]);
  });

  it("commandContext: without --api-url, the API of DEPLOY_API_URL; without --json, text", async () => {
    const ctx = await commandContext(io({ DEPLOY_API_URL: "http://env.test" }), {
      apiUrl: undefined,
      json: false,
      dir: ".",
    });
    expect([ctx.apiUrl, ctx.json]).toEqual(["http://env.test", false]);
  });
});
