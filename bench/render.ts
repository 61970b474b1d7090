import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BENCHMARKS_MD, RESULTS_DIR } from "./lib/paths.js";
import type { BenchResults } from "./lib/types.js";
import { writeBenchmarksMd } from "./report/benchmarks-md.js";
import { renderResults } from "./report/tables.js";

// Rewrites BENCHMARKS.md's generated section from a results file (default: the latest full run),
// without measuring again: for when the report's layout changes. `node dist/bench/render.js [file]`
const file = process.argv[2] ?? join(RESULTS_DIR, "latest.json");
const results = JSON.parse(readFileSync(file, "utf8")) as BenchResults;
await writeBenchmarksMd(BENCHMARKS_MD, renderResults(results));
console.log(`BENCHMARKS.md rewritten from ${file}`);
