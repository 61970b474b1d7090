import { connect } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.js";
import { TOOLS } from "./https-tools.js";
import { startTool } from "./tool-process.js";

/** The repository's own Caddyfile: the test runs exactly what the README's Production section ships. */
export const CADDYFILE = fileURLToPath(new URL("../../Caddyfile", import.meta.url));

export interface RunningCaddy {
  httpPort: number;
  httpsPort: number;
  log: () => string;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** How many times a start whose free port was taken meanwhile is tried again on other ports. */
const PORT_RACE_ATTEMPTS = 3;

/**
 * Runs `caddy run` on the repository's Caddyfile (or `config`), its settings from the environment
 * (free ports on 127.0.0.1, its storage under `dir`), and waits until its HTTPS port takes
 * connections. A port found free can be taken by another test's process before Caddy binds it (a
 * full CI run once lost the admin port so): such a start is tried again on new ports.
 */
export async function startCaddy(
  dir: string,
  env: Record<string, string>,
  ports: { https?: number } = {},
  config = CADDYFILE,
): Promise<RunningCaddy> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchCaddy(dir, env, ports, config);
    } catch (error) {
      const raced = String((error as Error).message).includes("address already in use");
      if (!raced || attempt >= PORT_RACE_ATTEMPTS) throw error;
    }
  }
}

async function launchCaddy(
  dir: string,
  env: Record<string, string>,
  ports: { https?: number },
  config: string,
): Promise<RunningCaddy> {
  const [httpPort, adminPort] = await Promise.all([freePort(), freePort()]);
  const httpsPort = ports.https ?? (await freePort());
  const caddy = startTool(TOOLS.caddy, ["run", "--config", config, "--adapter", "caddyfile"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
      HTTP_PORT: String(httpPort),
      HTTPS_PORT: String(httpsPort),
      CADDY_ADMIN: `127.0.0.1:${adminPort}`,
      ...env,
    },
  });
  for (let attempt = 0; attempt < 400 && !(await accepts(httpsPort)); attempt++) {
    if (caddy.child.exitCode !== null) throw new Error(`caddy exited: ${caddy.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!(await accepts(httpsPort))) throw new Error(`caddy did not listen on ${httpsPort}: ${caddy.output()}`);
  return { httpPort, httpsPort, log: caddy.output, stop: caddy.stop };
}

/**
 * Makes Caddy's ACME account in `dir`'s storage with one certificate, alone. Caddy 2.6 creates the
 * account on its first issuance without a lock: the repository's Caddyfile starts two at once (the
 * API's and the upload service's names), and an on-demand issuance that begins meanwhile read a
 * half-written account ("getting ACME account: invalid character") or a key that did not match
 * it ("JWS verification error"), and was retried only 60 s later. With the account made first,
 * every later issuance uses it.
 */
export async function primeAcmeAccount(
  dir: string,
  env: Record<string, string>,
  name: string,
): Promise<void> {
  const config = join(dir, "prime.Caddyfile");
  writeFileSync(
    config,
    `{
\tacme_ca {$ACME_CA}
\tacme_ca_root {$ACME_CA_ROOT}
\thttp_port {$HTTP_PORT}
\thttps_port {$HTTPS_PORT}
\tadmin {$CADDY_ADMIN}
\tskip_install_trust
}

${name} {
\trespond "account made"
}
`,
  );
  const caddy = await startCaddy(dir, env, {}, config);
  try {
    for (
      let waited = 0;
      !caddy.log().includes(`"certificate obtained successfully","identifier":"${name}"`);
      waited += 50
    ) {
      if (waited > 60_000) throw new Error(`caddy made no ACME account:\n${caddy.log().slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await caddy.stop();
  }
}
