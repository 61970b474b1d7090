import { ensureBuilt } from "../support/build.js";

/** Vitest global setup: compile dist/ once so tests can run the real binaries. */
export default function setup(): void {
  ensureBuilt();
}
