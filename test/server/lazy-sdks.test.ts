import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../support/build.js";
import { SERVER_ENTRY } from "../support/server-process.js";
import { tempDir } from "../support/server.js";

const dir = tempDir("lazy-sdks-");
const record = join(dir.path, "loaded.txt");
const register = join(dir.path, "register.mjs");

// A module hook (node --import) that notes every import of the two SDKs a built-in-platform
// process has no use for: Cloudflare's (~40 MB resident) and AWS's (~20 MB).
beforeAll(() => {
  ensureBuilt();
  writeFileSync(
    join(dir.path, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  if (/^(cloudflare|@aws-sdk\\/)/.test(specifier)) appendFileSync(${JSON.stringify(record)}, specifier + "\\n");
  return next(specifier, context);
}
`,
  );
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(join(dir.path, "hooks.mjs")).href)});\n`,
  );
});
afterAll(() => dir.cleanup());

/** Runs `args` under the hook until a line of stdout matches `ready`, then stops it; returns what was loaded. */
function loadedBy(args: string[], env: Record<string, string>, ready: RegExp): Promise<string[]> {
  writeFileSync(record, "");
  const child = spawn(process.execPath, ["--import", register, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) child.kill("SIGINT");
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("exit", () => {
      if (!ready.test(output)) reject(new Error(`never ready: ${output}`));
      else resolve(existsSync(record) ? readFileSync(record, "utf8").split("\n").filter(Boolean) : []);
    });
  });
}

describe("process memory: SDKs loaded only when configured", () => {
  it("startProcess: the built-in platform's process imports neither Cloudflare's SDK nor AWS's", async () => {
    const loaded = await loadedBy(
      [SERVER_ENTRY],
      { DATA_DIR: join(dir.path, "data"), PORT: "0", UPLOAD_PORT: "0", EDGE_PORT: "0", METRICS_PORT: "0" },
      /ops +listening/,
    );
    expect(loaded).toEqual([]);
  });

  it("startProcess: the hook sees an SDK when the code imports it (the check above can fail)", async () => {
    const platform = pathToFileURL(
      join(SERVER_ENTRY, "..", "..", "platform", "cloudflare", "open-cloudflare.js"),
    ).href;
    const loaded = await loadedBy(
      ["--input-type=module", "-e", `await import(${JSON.stringify(platform)}); console.log("imported");`],
      {},
      /imported/,
    );
    expect(loaded).toContain("cloudflare");
  });
});
