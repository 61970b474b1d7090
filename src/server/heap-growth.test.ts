import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { limitHeapGrowth, SERVER_NODE_FLAGS } from "./heap-growth.js";

const root = new URL("../../", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), "utf8");

describe("limitHeapGrowth", () => {
  it("limitHeapGrowth: sets V8's heap growth when the operator gave none", () => {
    expect(limitHeapGrowth(["--enable-source-maps"], "--max-old-space-size=4096")).toBe(true);
    expect(limitHeapGrowth([], "")).toBe(true);
  });

  it("limitHeapGrowth: leaves an operator's own setting alone, in the node command or NODE_OPTIONS, either spelling", () => {
    expect(limitHeapGrowth(["--heap-growing-percent=200"], "")).toBe(false);
    expect(limitHeapGrowth([], "--inspect --heap_growing_percent=10")).toBe(false);
    expect(limitHeapGrowth(["--heap-growing-percent", "20"], "")).toBe(false);
    // A flag that only starts alike, or holds the name in its value, is not the same setting.
    expect(limitHeapGrowth(["--heap-growing-percentage=5"], "")).toBe(true);
    expect(limitHeapGrowth(["--title=--heap-growing-percent=5"], "")).toBe(true);
  });

  it("limitHeapGrowth: by default reads this process's NODE_OPTIONS", () => {
    const saved = process.env.NODE_OPTIONS;
    try {
      process.env.NODE_OPTIONS = "--heap-growing-percent=80";
      expect(limitHeapGrowth()).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.NODE_OPTIONS;
      else process.env.NODE_OPTIONS = saved;
    }
  });

  it("SERVER_NODE_FLAGS: the binary, npm start, the image's command and the bench's server all pass them to node", () => {
    const flags = SERVER_NODE_FLAGS.join(" ");
    expect(read("bin/deploy-server.js").split("\n")[0]).toBe(`#!/usr/bin/env -S node ${flags}`);
    const start = (JSON.parse(read("package.json")) as { scripts: { start: string } }).scripts.start;
    expect(start).toBe(`node ${flags} scripts/start.mjs`);
    const command = read("Dockerfile").match(/^CMD (.*)$/m)?.[1];
    expect(command).toBe(
      JSON.stringify(["node", ...SERVER_NODE_FLAGS, "dist/server/main.js"]).replaceAll(",", ", "),
    );
    // The bench compiles apart from src/ and keeps its own copy of the flags.
    expect(read("bench/lib/server-process.ts")).toContain(
      `const SERVER_NODE_FLAGS = ${JSON.stringify(SERVER_NODE_FLAGS)};`,
    );
  });
});
