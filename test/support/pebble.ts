import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { freePort } from "./free-port.js";
import { TOOLS } from "./https-tools.js";
import { startTool } from "./tool-process.js";

/** A running pebble: its ACME directory, the CA its own listener uses, and the root it issues under. */
export interface Pebble {
  directoryUrl: string;
  /** PEM file of the CA that signed pebble's own HTTPS listener (for Caddy's acme_ca_root). */
  listenerCaFile: string;
  /** PEM of the root pebble issues certificates under, from its management endpoint. */
  issuingRoot: string;
  log: () => string;
  stop(): Promise<void>;
}

// Pebble's default configuration, as Debian ships it; only addresses and its own key pair change.
const DEFAULT_CONFIG = "/usr/share/doc/pebble/examples/pebble-config.json";

/** A CA and a certificate for 127.0.0.1 and localhost signed by it, made with openssl in `dir`. */
function makeListenerCertificate(dir: string): { ca: string; cert: string; key: string } {
  const run = (args: string[]) => {
    const result = spawnSync(TOOLS.openssl, args, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`openssl ${args[0]} failed: ${result.stderr}`);
  };
  writeFileSync(join(dir, "san.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  run(
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem"].concat([
      "-days",
      "2",
      "-subj",
      "/CN=pebble listener test CA",
    ]),
  );
  run([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "key.pem",
    "-out",
    "leaf.csr",
    "-subj",
    "/CN=localhost",
  ]);
  run(
    ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial"].concat([
      "-out",
      "cert.pem",
      "-days",
      "2",
      "-extfile",
      "san.cnf",
    ]),
  );
  return { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
}

/**
 * GETs an HTTPS URL trusting only `ca`; resolves with the status and body, rejects when nothing
 * has come for 5 s (a listener that is up but not yet serving would otherwise hold the caller).
 */
export function httpsGet(url: string, ca: string | Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false, timeout: 5_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${url} in 5 s`)));
    req.on("error", reject);
    req.end();
  });
}

/**
 * Starts pebble on free ports of 127.0.0.1 with its default configuration, every challenge taken
 * as valid (PEBBLE_VA_ALWAYS_VALID=1: no name here resolves to us), and waits for it to answer.
 */
export async function startPebble(dir: string): Promise<Pebble> {
  const files = makeListenerCertificate(dir);
  const [acme, management, http01, tlsAlpn] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  // Images that leave out /usr/share/doc get the same defaults written here.
  const config = (
    existsSync(DEFAULT_CONFIG)
      ? JSON.parse(readFileSync(DEFAULT_CONFIG, "utf8"))
      : { pebble: { ocspResponderURL: "", externalAccountBindingRequired: false } }
  ) as { pebble: Record<string, unknown> };
  Object.assign(config.pebble, {
    listenAddress: `127.0.0.1:${acme}`,
    managementListenAddress: `127.0.0.1:${management}`,
    certificate: files.cert,
    privateKey: files.key,
    httpPort: http01,
    tlsPort: tlsAlpn,
  });
  const configFile = join(dir, "pebble-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const pebble = startTool(TOOLS.pebble, ["-config", configFile], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "",
      PEBBLE_VA_ALWAYS_VALID: "1",
      PEBBLE_VA_NOSLEEP: "1",
      PEBBLE_WFE_NONCEREJECT: "0",
    },
  });
  const ca = readFileSync(files.ca);
  const rootUrl = `https://127.0.0.1:${management}/roots/0`;
  let issuingRoot = "";
  let lastError = "";
  const deadline = Date.now() + 30_000;
  while (issuingRoot === "" && Date.now() < deadline) {
    if (pebble.child.exitCode !== null) throw new Error(`pebble exited: ${pebble.output()}`);
    try {
      const res = await httpsGet(rootUrl, ca);
      if (res.status === 200 && res.body.includes("BEGIN CERTIFICATE")) issuingRoot = res.body;
      else lastError = `${res.status} ${res.body.slice(0, 200)}`;
    } catch (error) {
      lastError = String(error);
    }
    if (issuingRoot === "") await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (issuingRoot === "")
    throw new Error(`pebble did not answer at ${rootUrl} (${lastError}): ${pebble.output()}`);
  return {
    directoryUrl: `https://127.0.0.1:${acme}/dir`,
    listenerCaFile: files.ca,
    issuingRoot,
    log: pebble.output,
    stop: pebble.stop,
  };
}
