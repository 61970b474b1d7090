import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import type { CloudflareApi } from "../support/cloudflare-api/server.js";
import { WorkersRuntime } from "../support/cloudflare-api/workers-runtime.js";
import type { TestDnsServer } from "../support/dns-server.js";
import { type CloudflareProcessBed, startCloudflareProcessBed } from "../support/cloudflare-process-bed.js";
import { TestClock } from "../support/clock.js";
import { checkPendingDomains } from "../../src/core/operations/index.js";
import type { RunningProcess } from "../../src/server/start.js";
import { runInProcess, type TestBed, writeSite } from "../client/helpers.js";

/**
 * The real `deploy` client against the API with PLATFORM=cloudflare, pointed at the Cloudflare API
 * stand-in; what it published is served by workerd (miniflare) through the repository's dispatch
 * Worker.
 */
describe("Cloudflare end to end: deploy client → API → Cloudflare stand-in → workerd", () => {
  let cloudflare: CloudflareProcessBed;
  let api: CloudflareApi;
  let dns: TestDnsServer;
  let bed: TestBed<RunningProcess>;
  let runtime: WorkersRuntime;
  let site: string;
  const clock = new TestClock();
  let deployed: { projectSlug: string; revisionId: string; productionUrl: string; revisionUrl: string };
  let uploadCalls: number;
  let assetsHeld: number;

  const get = async (hostname: string, path: string) => {
    const reply = await runtime.fetch(hostname, path);
    return { status: reply.status, body: await reply.text() };
  };

  beforeAll(async () => {
    cloudflare = await startCloudflareProcessBed(clock);
    ({ api, dns, bed } = cloudflare);
    runtime = new WorkersRuntime(api.state, {
      namespace: CF.dispatchNamespace,
      kvNamespaceId: CF.kvNamespaceId,
      dir: join(bed.dir, "workers"),
    });
    site = join(bed.dir, "site");
    await writeSite(site, {
      "index.html": "<h1>home</h1>",
      "about.html": "about us",
      "404.html": "lost",
    });
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.stderr).not.toContain("Error");
    expect(run.code).toBe(0);
    deployed = JSON.parse(run.stdout);
    // As the first deploy left them: other tests here deploy more, in any order.
    uploadCalls = api.calls.filter((c) => c.endsWith("/workers/assets/upload")).length;
    assetsHeld = api.state.namespaceAssets(CF.dispatchNamespace).size;
  });
  afterAll(async () => {
    await runtime?.close();
    await cloudflare?.stop();
  });

  it("deploy: the client uploads straight to Cloudflare's upload endpoint, not the API", () => {
    expect(uploadCalls).toBeGreaterThan(0);
    expect(assetsHeld).toBe(3);
  });

  it("site: the production hostname serves the site through the dispatch Worker", async () => {
    const host = new URL(deployed.productionUrl).hostname;
    expect(host).toBe(`${deployed.projectSlug}.sites.test`);
    expect(await get(host, "/")).toEqual({ status: 200, body: "<h1>home</h1>" });
    expect(await get(host, "/about")).toEqual({ status: 200, body: "about us" });
    expect(await get(host, "/nope")).toEqual({ status: 404, body: "lost" });
  });

  it("site: the revision URL serves its revision", async () => {
    const host = new URL(deployed.revisionUrl).hostname;
    expect(host).toBe(`${deployed.revisionId}--${deployed.projectSlug}.sites.test`);
    expect(await get(host, "/")).toEqual({ status: 200, body: "<h1>home</h1>" });
  });

  it("site: an unknown host answers 404", async () => {
    expect((await get("nobody-here-x1y2z.sites.test", "/")).status).toBe(404);
    expect((await get("example.org", "/")).status).toBe(404);
  });

  it("domain: a custom hostname becomes a Cloudflare for SaaS custom hostname and serves the site; its status is Cloudflare's", async () => {
    dns.setCname("www.example.com", "edge.sites.test");
    const run = await runInProcess(["domain", "www.example.com", "--json"], bed.env, site);
    expect(run.code).toBe(0);
    // DNS shows the CNAME, but on this platform the name is active only once Cloudflare says so.
    expect(JSON.parse(run.stdout).domain).toMatchObject({
      status: "pending",
      message: "Cloudflare shows the custom hostname pending, its certificate pending_validation",
    });
    const stillPending = await runInProcess(["domain", "--check", "--json"], bed.env, site);
    expect(JSON.parse(stillPending.stdout).domain.status).toBe("pending");
    api.state.validateCustomHostname(CF.zoneId, "www.example.com");
    const check = await runInProcess(["domain", "--check", "--json"], bed.env, site);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout).domain).toMatchObject({
      status: "active",
      message: "Cloudflare shows the custom hostname active, its certificate active",
    });
    const hostnames = [...api.state.zone(CF.zoneId).values()].map((h) => [
      h.hostname,
      h.ssl.method,
      h.ssl.type,
    ]);
    expect(hostnames).toEqual([["www.example.com", "http", "dv"]]);
    expect(await get("www.example.com", "/about")).toEqual({ status: 200, body: "about us" });
    const reset = await runInProcess(["domain", "--reset", "--json"], bed.env, site);
    expect(reset.code).toBe(0);
    expect(api.state.zone(CF.zoneId).size).toBe(0);
    expect((await get("www.example.com", "/about")).status).toBe(404);
  });

  it("domain: assigned and pending when Cloudflare cannot say the name's status at once; the next check asks it again", async () => {
    dns.setCname("shop.example.org", "edge.sites.test");
    api.faults.add({
      method: "GET",
      path: new RegExp(`/zones/${CF.zoneId}/custom_hostnames`),
      status: 403,
      code: 10000,
      message: "Authentication error",
    });
    const run = await runInProcess(["domain", "shop.example.org", "--json"], bed.env, site);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(JSON.parse(run.stdout).domain).toMatchObject({ hostname: "shop.example.org", status: "pending" });
    expect(api.faults.hits).toContainEqual(expect.stringMatching(/^GET .*\/custom_hostnames/));
    const check = await runInProcess(["domain", "--check", "--json"], bed.env, site);
    expect(JSON.parse(check.stdout).domain).toMatchObject({
      status: "pending",
      message: "Cloudflare shows the custom hostname pending, its certificate pending_validation",
    });
    expect((await runInProcess(["domain", "--reset"], bed.env, site)).code).toBe(0);
  });

  it("site: the site's _redirects and _headers apply on Cloudflare, sent by the client with the deploy", async () => {
    const rules = join(bed.dir, "rules-site");
    await writeSite(rules, {
      "index.html": "home",
      "new.html": "new page",
      _redirects: "/old /new 301\n/docs/* /new 302\n",
      _headers: "/*\n  X-Frame-Options: DENY\n",
    });
    const run = await runInProcess([rules, "--json"], bed.env);
    expect(run.code).toBe(0);
    const host = new URL(JSON.parse(run.stdout).productionUrl).hostname;
    const moved = await runtime.fetch(host, "/old");
    expect(moved.status).toBe(301);
    expect(new URL(moved.headers.get("location")!, `https://${host}`).pathname).toBe("/new");
    expect((await runtime.fetch(host, "/docs/a")).status).toBe(302);
    const page = await runtime.fetch(host, "/new");
    expect(page.status).toBe(200);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect((await get(host, "/_redirects")).status).toBe(404);
  });

  it("deploy: rules Cloudflare drops as loops or applies over files are warned of; GET /limits says the platform", async () => {
    const limits = (await (await fetch(`${bed.server.urls.api}/limits`)).json()) as { platform: string };
    expect(limits.platform).toBe("cloudflare");
    const app = join(bed.dir, "app-site");
    await writeSite(app, {
      "index.html": "home",
      "app/index.html": "app",
      "app/main.js": "main()",
      "product.html": "product",
      "products/list.html": "list",
      _redirects: "/app/* /app/index.html 200\n/products/* /product.html 200\n",
    });
    const run = await runInProcess([app, "--json"], bed.env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'warning: _redirects:1: Cloudflare drops "/app/* /app/index.html 200" as a loop',
    );
    expect(run.stderr).toContain(
      'warning: _redirects:2: on Cloudflare "/products/* /product.html 200" also replaces /products/list (',
    );
    // The second rule works there: its target given to Cloudflare as /product, no redirect.
    const host = new URL(JSON.parse(run.stdout).productionUrl).hostname;
    expect(await get(host, "/products/12")).toEqual({ status: 200, body: "product" });
  });

  it("sweep: a pending custom hostname becomes active once Cloudflare has validated it", async () => {
    const run = await runInProcess(["domain", "docs.example.net", "--json"], bed.env, site);
    expect(JSON.parse(run.stdout).domain.status).toBe("pending");
    api.state.validateCustomHostname(CF.zoneId, "docs.example.net");
    clock.advance(bed.server.config.domainCheckIntervalSeconds + 1);
    expect(await checkPendingDomains(bed.server.services)).toEqual({
      domainsChecked: 1,
      domainsActivated: 1,
      domainsLapsed: 0,
    });
    const shown = await runInProcess(["domain", "docs.example.net", "--json"], bed.env, site);
    expect(JSON.parse(shown.stdout).domain.status).toBe("active");
    expect((await runInProcess(["domain", "--reset"], bed.env, site)).code).toBe(0);
  });

  it("/healthz: a token Cloudflare refuses makes the platform check down, saying what to check", async () => {
    api.faults.add({
      method: "GET",
      path: /\/user\/tokens\/verify$/,
      status: 403,
      code: 9109,
      message: "Invalid access token",
    });
    const reply = await fetch(`${bed.server.urls.api}/healthz`);
    expect(reply.status).toBe(503);
    const body = (await reply.json()) as { checks: Record<string, string>; reasons: Record<string, string> };
    expect(body.checks.platform).toBe("down");
    expect(body.reasons.platform).toMatch(
      /Cloudflare refused the API token .*code 9109.*CLOUDFLARE_API_TOKEN/,
    );
    expect(JSON.stringify(body)).not.toContain(CF.apiToken);
    expect((await fetch(`${bed.server.urls.api}/healthz`)).status).toBe(200);
  });
});
