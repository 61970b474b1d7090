import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The compiled script `name` (say `part-hash-worker.js`) beside the module at `from` (its
 * `import.meta.url`), for a worker thread to run. Compiled (dist/), it is the sibling file. Run
 * from the sources (the tests, through vitest), the module is TypeScript, which a worker cannot
 * load: the same path under dist/ instead of src/ (the tests build dist/ first).
 */
export function workerScript(name: string, from: string): URL {
  const sibling = new URL(`./${name}`, from);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  const compiled = new URL(sibling.href.replace(/\/src\/(?!.*\/src\/)/, "/dist/"));
  if (existsSync(fileURLToPath(compiled))) return compiled;
  throw new Error(`worker script ${name} not found beside ${from} nor under dist/ (run npm run build)`);
}
