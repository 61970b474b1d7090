import { ensureBuilt } from "./build.js";

/** Vitest global setup: compile dist/ once so tests can run the real `bin/deploy.js`. */
export default function setup(): void {
  ensureBuilt();
}
