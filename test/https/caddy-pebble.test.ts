import { mkdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request } from "node:https";
import type { PeerCertificate, TLSSocket } from "node:tls";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, writeSite } from "../client/helpers.js";
import { primeAcmeAccount, type RunningCaddy, startCaddy } from "../support/caddy.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { freePort } from "../support/free-port.js";
import { httpsToolsPresent } from "../support/https-tools.js";
import { type Pebble, startPebble } from "../support/pebble.js";
import { startTestServer, tempDir } from "../support/server.js";

interface TlsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  certificate: PeerCertificate;
}

/** GETs `path` of `hostname` through Caddy on 127.0.0.1 (SNI and Host set), trusting only `ca`. */
function tlsGet(port: number, hostname: string, path: string, ca: string): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, servername: hostname, headers: { host: hostname }, ca, agent: false },
      (res) => {
        const certificate = (res.socket as TLSSocket).getPeerCertificate();
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, certificate }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const SITES = "sites.example.org";
const present = httpsToolsPresent();

// Production's HTTPS, end to end: the repository's Caddyfile in front of the service, certificates
// from pebble (Let's Encrypt's test CA) obtained on demand, Caddy asking GET /tls/ask first.
describe.skipIf(!present && !process.env.CI)("HTTPS through Caddy with certificates from pebble", () => {
  const dir = tempDir("https-e2e-");
  let dns: TestDnsServer;
  let pebble: Pebble;
  let caddy: RunningCaddy;
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    if (!present)
      throw new Error("caddy, pebble or openssl missing: run scripts/install-https-tools.sh first");
    for (const sub of ["pebble", "caddy", "sites", "config"]) mkdirSync(join(dir.path, sub));
    dns = await startTestDns();
    pebble = await startPebble(join(dir.path, "pebble"));
    const httpsPort = await freePort();
    server = await startTestServer({
      sitesDomain: SITES,
      cnameTarget: `edge.${SITES}`,
      dnsResolver: dns.address,
      publicScheme: "https",
      publicEdgePort: httpsPort,
    });
    const hostPort = (url: string) => new URL(url).host;
    const caddyEnv = {
      SITES_DOMAIN: SITES,
      DEPLOY_API: hostPort(server.urls.api),
      DEPLOY_UPLOAD: hostPort(server.urls.upload),
      DEPLOY_EDGE: hostPort(server.urls.edge),
      ACME_CA: pebble.directoryUrl,
      ACME_CA_ROOT: pebble.listenerCaFile,
    };
    await primeAcmeAccount(join(dir.path, "caddy"), caddyEnv, `api.${SITES}`);
    caddy = await startCaddy(join(dir.path, "caddy"), caddyEnv, { https: httpsPort });
    env = {
      DEPLOY_API_URL: server.urls.api,
      DEPLOY_CONFIG_DIR: join(dir.path, "config"),
      PATH: process.env.PATH ?? "",
    };
  }, 120_000);

  afterAll(async () => {
    await caddy?.stop();
    await pebble?.stop();
    await server?.stop();
    await dns?.close();
    dir.cleanup();
  });

  it("HTTPS: the client deploys and assigns a domain DNS proves; Caddy gets its certificate from pebble on the spot and serves the site", async () => {
    const site = join(dir.path, "sites", "shop");
    await writeSite(site, { "index.html": "<h1>shop over https</h1>" });
    const deployed = await runInProcess([site, "--json"], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    const slug = (JSON.parse(deployed.stdout) as { projectSlug: string }).projectSlug;
    dns.setCname("www.shop.example.net", `edge.${SITES}`);
    const assigned = await runInProcess(["domain", "www.shop.example.net", "--dir", site], env);
    expect(assigned.code, assigned.stderr).toBe(0);
    expect(assigned.stdout).toContain("Status:     active");

    const custom = await tlsGet(caddy.httpsPort, "www.shop.example.net", "/", pebble.issuingRoot).catch(
      (error: unknown) => {
        throw new Error(`${String(error)}\ncaddy log:\n${caddy.log().slice(-4000)}`);
      },
    );
    expect(custom.status).toBe(200);
    expect(custom.body).toBe("<h1>shop over https</h1>");
    // Issued just now by pebble for exactly this name (the request verified it against pebble's root).
    expect(custom.certificate.subjectaltname).toContain("DNS:www.shop.example.net");
    expect(custom.certificate.issuer.CN).toMatch(/^Pebble Intermediate CA/);

    const generated = await tlsGet(caddy.httpsPort, `${slug}.${SITES}`, "/", pebble.issuingRoot);
    expect(generated.status).toBe(200);
    expect(generated.headers.link).toBe(
      `<https://www.shop.example.net:${caddy.httpsPort}/>; rel="canonical"`,
    );
  }, 120_000);

  it("HTTPS: a hostname nobody holds, or one still pending, gets no certificate", async () => {
    await expect(tlsGet(caddy.httpsPort, "nobody.example.net", "/", pebble.issuingRoot)).rejects.toThrow();
    const site = join(dir.path, "sites", "pending");
    await writeSite(site, { "index.html": "pending" });
    expect((await runInProcess([site], env)).code).toBe(0);
    const assigned = await runInProcess(["domain", "pending.example.net", "--dir", site], env);
    expect(assigned.stdout).toContain("Status:     pending");
    await expect(tlsGet(caddy.httpsPort, "pending.example.net", "/", pebble.issuingRoot)).rejects.toThrow();
    expect(caddy.log()).not.toMatch(
      /certificate obtained successfully","identifier":"(nobody|pending)\.example\.net/,
    );
  }, 120_000);

  it("HTTP: Caddy answers plain HTTP with a 308 to HTTPS", async () => {
    const answer = await new Promise<{ status: number; location: string | undefined }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: caddy.httpPort,
          path: "/a?b=1",
          headers: { host: "www.shop.example.net" },
        },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).toBe(308);
    expect(answer.location).toBe("https://www.shop.example.net/a?b=1");
  });
});
