import { DatabaseUnavailableError } from "../core/errors.js";
import { ConfigError, loadConfig } from "./config.js";
import { migrateMetadataStore, platformPostgres } from "./metadata-store.js";
import { migratePostgresPlatform } from "../platform/selfhost/index.js";
import { startProcess } from "./start.js";
import { limitHeapGrowth } from "./heap-growth.js";

/**
 * The `deploy-server` binary: start on the environment's settings, stop cleanly on a signal;
 * `deploy-server migrate` applies the database's pending migrations and exits; `deploy-server
 * cloudflare setup` readies a Cloudflare account (docs/cloudflare.md).
 */
async function main(): Promise<void> {
  limitHeapGrowth();
  const command = process.argv[2];
  if (command !== undefined && command !== "migrate" && command !== "cloudflare") {
    console.error(
      `deploy-server: unknown command ${JSON.stringify(command)}; usage: deploy-server [migrate | cloudflare setup]`,
    );
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`deploy-server: invalid configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  if (command === "migrate") {
    const { applied } = await migrateMetadataStore(config);
    console.log(
      applied.length === 0 ? "metadata store: up to date" : `metadata store: applied ${applied.join(", ")}`,
    );
    // The platform's own schema, when it is in PostgreSQL too (SQLite's upgrades itself at start).
    const platform = platformPostgres(config);
    if (platform !== undefined) {
      // One statement at a time: one connection.
      const report = await migratePostgresPlatform({ ...platform, maxConnections: 1 });
      console.log(
        report.applied.length === 0
          ? "platform: up to date"
          : `platform: applied ${report.applied.join(", ")}`,
      );
    }
    return;
  }
  if (command === "cloudflare") {
    // Cloudflare's SDK is loaded only by the command that uses it.
    const { cloudflareCommand } = await import("../platform/cloudflare/setup-command.js");
    process.exit(await cloudflareCommand(process.argv.slice(3), config));
  }
  const server = await startProcess(config);
  const { api, upload, edge, ops } = server.urls;
  if (api) console.log(`api     listening on ${api}`);
  if (upload) console.log(`upload  listening on ${upload}`);
  if (edge) {
    const port = new URL(edge).port;
    console.log(`edge    listening on ${edge} (sites at http://<project>.${config.sitesDomain}:${port}/)`);
  }
  console.log(`ops     listening on ${ops} (/metrics, /healthz)`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing requests in flight, then stopping`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  if (error instanceof DatabaseUnavailableError) {
    // The cause says why (refused, timed out, no such database); DATABASE_URL itself may hold a
    // password and is never printed.
    const cause = error.cause instanceof Error ? error.cause.message : String(error.cause);
    console.error(`deploy-server: the database is unavailable (${cause}); check DATABASE_URL`);
  } else if (code === "EADDRINUSE") {
    console.error(
      `deploy-server: a port is already in use (${(error as Error).message}); set PORT, UPLOAD_PORT or EDGE_PORT`,
    );
  } else {
    console.error("deploy-server: failed to start:", error);
  }
  process.exit(1);
});
