import { afterAll, vi } from "vitest";

/**
 * Setup file of every test file: what a file changes in its worker's globals it must put back
 * itself. Test files share their worker (`isolate: false`), so a fake or spied timer left behind
 * would stall a later file's timers, far from the cause; this fails the file that left it instead,
 * and puts the original back so the files after it run on real globals.
 */
const WATCHED = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "setImmediate",
  "Date",
  "fetch",
] as const;
type Watched = (typeof WATCHED)[number];

const ORIGINALS = Symbol.for("static-deploy.worker-guard.originals");
const store = globalThis as unknown as Record<symbol, Record<Watched, unknown> & { now: unknown }>;
// The first file of a worker records the originals; the later ones compare with them.
const originals = (store[ORIGINALS] ??= {
  ...(Object.fromEntries(WATCHED.map((name) => [name, globalThis[name]])) as Record<Watched, unknown>),
  now: performance.now,
});

afterAll(() => {
  // Spies first: a spy restored by a later file would put back what the global was when it was
  // made, a fake timer for instance. Restored now, what it puts back is checked below.
  vi.restoreAllMocks();
  const left: string[] = [];
  if (vi.isFakeTimers()) {
    left.push("fake timers");
    vi.useRealTimers();
  }
  for (const name of WATCHED) {
    if (globalThis[name] === originals[name]) continue;
    left.push(`globalThis.${name}`);
    (globalThis as Record<string, unknown>)[name] = originals[name];
  }
  if (performance.now !== originals.now) {
    left.push("performance.now");
    performance.now = originals.now as typeof performance.now;
  }
  if (left.length > 0) {
    throw new Error(`this file left ${left.join(", ")} replaced: restore it in the test that changed it`);
  }
});
