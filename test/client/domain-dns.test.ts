import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { runInProcess, startTestBed, type TestBed, writeSite } from "./helpers.js";

// The client's side of DNS proof: the records to create, the status, and --check.
describe("deploy domain with DNS", () => {
  let bed: TestBed;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    bed = await startTestBed({ dnsResolver: dns.address });
  });
  afterAll(async () => {
    await bed.stop();
    await dns.close();
  });

  it("domain: prints the CNAME and TXT records and the pending status; --check reports active once DNS shows the CNAME", async () => {
    const site = join(bed.dir, "dns-site");
    await writeSite(site, { "index.html": "x" });
    expect((await runInProcess([site], bed.env)).code).toBe(0);
    const assign = await runInProcess(["domain", "docs.example.com", "--dir", site], bed.env);
    expect(assign.code).toBe(0);
    expect(assign.stdout).toContain("point a CNAME record for docs.example.com at edge.localhost");
    expect(assign.stdout).toMatch(
      /or prove control with a TXT record _deploy-challenge\.docs\.example\.com holding deploy-challenge=[0-9a-f]{32}/,
    );
    expect(assign.stdout).toContain("Status:     pending: DNS shows neither");
    expect(assign.stdout).toContain("deploy domain --check");

    dns.setCname("docs.example.com", "edge.localhost");
    const check = await runInProcess(["domain", "--check", "--dir", site], bed.env);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(
      "Status:     active (DNS shows docs.example.com as a CNAME for edge.localhost)",
    );
    const json = await runInProcess(["domain", "--check", "--dir", site, "--json"], bed.env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      domain: { hostname: "docs.example.com", status: "active" },
    });
  });

  it("domain: --check without a custom domain exits 1 saying so", async () => {
    const site = join(bed.dir, "no-domain");
    await writeSite(site, { "index.html": "x" });
    expect((await runInProcess([site], bed.env)).code).toBe(0);
    const run = await runInProcess(["domain", "--check", "--dir", site], bed.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("could not check the domain: ");
    const json = await runInProcess(["domain", "--check", "--dir", site, "--json"], bed.env);
    expect(JSON.parse(json.stdout).error.code).toBe("DOMAIN_NOT_ASSIGNED");
  });
});
