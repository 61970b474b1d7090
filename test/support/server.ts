import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Logger, pino } from "pino";
import { type RunningServer, type ServerConfig, startServer } from "../../src/server/index.js";
import { TestClock } from "./clock.js";

/** A temporary data directory, removed by `cleanup`. */
export function tempDir(prefix = "deploy-test-"): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every listener on 127.0.0.1, each on a port the system picks. */
export const ON_LOOPBACK = {
  host: "127.0.0.1",
  port: 0,
  uploadPort: 0,
  edgePort: 0,
  metricsPort: 0,
} as const;

/**
 * Starts the real server on 127.0.0.1 with free ports, a temporary DATA_DIR and silent logs (unless
 * the test gives its own logger).
 */
export async function startTestServer(
  overrides: Partial<ServerConfig> & { logger?: Logger } = {},
): Promise<RunningServer & { dataDir: string; clock: TestClock; stop: () => Promise<void> }> {
  const dir = overrides.dataDir ? undefined : tempDir();
  const dataDir = overrides.dataDir ?? dir!.path;
  const clock = new TestClock();
  const server = await startServer({
    clock,
    ...ON_LOOPBACK,
    sitesDomain: "localhost",
    // No test reaches the outside: DNS goes to a closed port on loopback (refused at once) unless
    // a test starts its own server (test/support/dns-server.ts).
    dnsResolver: "127.0.0.1:1",
    dnsTimeoutMs: 1000,
    logger: pino({ level: "silent" }),
    ...overrides,
    dataDir,
  });
  return {
    ...server,
    dataDir,
    clock,
    stop: async () => {
      await server.close();
      dir?.cleanup();
    },
  };
}
