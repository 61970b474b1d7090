import { execFile, execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { freePort } from "./free-port.js";

/** A PostgreSQL cluster of the test's own (Debian's pg_createcluster), which it may restart at will. */
export interface OwnCluster {
  url: string;
  /** `pg_ctlcluster <version> <name> restart`: every connection dropped, the server back after. */
  restart(): Promise<void>;
  drop(): void;
}

/**
 * Creates and starts a cluster named `name` on a free port, trusting local connections, so a test
 * can restart PostgreSQL without touching the one other tests share. Undefined when Debian's
 * cluster tools are not here (a machine where PostgreSQL came from elsewhere).
 */
export async function createOwnCluster(name: string): Promise<OwnCluster | undefined> {
  let version: string | undefined;
  try {
    version = readdirSync("/usr/lib/postgresql").sort().at(-1);
  } catch {
    return undefined;
  }
  if (version === undefined) return undefined;
  const port = await freePort();
  const run = (...args: string[]) =>
    execFileSync(args[0]!, args.slice(1), { stdio: "pipe", timeout: 60_000 });
  // A leftover of a killed run under the same name goes first.
  try {
    run("pg_dropcluster", "--stop", version, name);
  } catch {
    // none
  }
  run("pg_createcluster", "--port", String(port), version, name, "--", "--auth=trust");
  run("pg_ctlcluster", version, name, "start");
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () =>
      new Promise<void>((resolve, reject) =>
        execFile("pg_ctlcluster", [version, name, "restart", "-m", "fast"], { timeout: 60_000 }, (error) =>
          error ? reject(error) : resolve(),
        ),
      ),
    drop: () => void run("pg_dropcluster", "--stop", version, name),
  };
}
