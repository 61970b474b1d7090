import { chromiumPresent } from "../browser/chromium.js";
import { ensureBuilt } from "./build.js";
import { httpsToolsPresent } from "./https-tools.js";
import { postgresReady } from "./postgres.js";
import { radosgwReady } from "./radosgw.js";

/**
 * Vitest global setup: compile dist/ once so tests can run the real binaries, and install the
 * programs some tests need (chromium, caddy and pebble, PostgreSQL, Ceph's radosgw) once, before any file runs:
 * two files installing them at the same time would find each other's half-done install.
 */
export default async function setup(): Promise<void> {
  ensureBuilt();
  chromiumPresent();
  httpsToolsPresent();
  await postgresReady();
  await radosgwReady();
}
