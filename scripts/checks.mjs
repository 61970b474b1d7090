#!/usr/bin/env node
// `npm test`'s static checks, side by side: the type check, eslint, the import-cycle check and
// prettier each take one process (about 21 s together on two cores from a fresh clone, 5 s with
// their caches). Each one's output is printed whole once it ends, so the outputs never interleave;
// the exit code is the first failure's, or 0. Names as arguments run only those checks
// (`npm run typecheck`, `npm run lint`), with the same options and caches.
import { spawn } from "node:child_process";

// Each tool keeps what it found about unchanged files under node_modules/.cache (a fresh clone
// starts without it and checks everything): a second run checks only what changed since.
const CACHE = "node_modules/.cache/checks";
const INCREMENTAL = ["--incremental", "--tsBuildInfoFile", `${CACHE}/typecheck.tsbuildinfo`];
const CHECKS = [
  ["typecheck", "npx", ["tsc", "-p", "tsconfig.json", "--noEmit", "--rootDir", ".", ...INCREMENTAL]],
  [
    "eslint",
    "npx",
    ["eslint", ".", "--cache", "--cache-strategy", "content", "--cache-location", `${CACHE}/eslint`],
  ],
  ["cycles", "node", ["scripts/check-cycles.mjs", "src"]],
  ["prettier", "npx", ["prettier", "--check", ".", "--cache", "--cache-location", `${CACHE}/prettier`]],
];

/** Runs one check; resolves with its name, exit code and everything it printed. */
function run([name, command, args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => resolve({ name, code: 1, output: `${error.message}\n` }));
    child.on("close", (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), output: Buffer.concat(output).toString() }),
    );
  });
}

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !CHECKS.some(([known]) => known === name));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown check: ${unknown.join(", ")} (known: ${CHECKS.map(([name]) => name).join(", ")})\n`,
  );
  process.exit(2);
}
const chosen = asked.length === 0 ? CHECKS : CHECKS.filter(([name]) => asked.includes(name));

const started = performance.now();
const results = await Promise.all(
  chosen.map((check) =>
    run(check).then((result) => {
      const status = result.code === 0 ? "ok" : `failed (exit ${result.code})`;
      process.stdout.write(`── ${result.name}: ${status}\n${result.code === 0 ? "" : result.output}`);
      return result;
    }),
  ),
);
const failed = results.find((result) => result.code !== 0);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(failed ? `checks failed (${seconds} s)\n` : `checks passed (${seconds} s)\n`);
process.exitCode = failed?.code ?? 0;
