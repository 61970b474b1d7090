import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DnsResolver, DnsUnavailableError } from "../../src/shared/dns-resolver.js";
import { assignDomain, createTestProject } from "../support/deploy-flow.js";
import { startSilentDns, startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { startTestServer } from "../support/server.js";

describe("DnsResolver", () => {
  let dns: TestDnsServer;
  let resolver: DnsResolver;
  beforeAll(async () => {
    dns = await startTestDns();
    resolver = new DnsResolver({ server: dns.address, timeoutMs: 5_000 });
  });
  afterAll(async () => dns.close());

  it("DnsResolver.cnames: the targets lowercase and without their trailing dot", async () => {
    dns.setCname("www.example.test", "Sites.Example.NET.");
    expect(await resolver.cnames("www.example.test")).toEqual(["sites.example.net"]);
  });

  it("DnsResolver.txt: each record's character-strings joined", async () => {
    dns.setTxt("_proof.example.test", [["token-", "two"], "token-one"]);
    const records = await resolver.txt("_proof.example.test");
    expect(records.sort()).toEqual(["token-one", "token-two"]);
  });

  it("DnsResolver: a name that does not exist, or exists without such a record, is [] (an answer, not a failure)", async () => {
    expect(await resolver.cnames("nowhere.example.test")).toEqual([]);
    expect(await resolver.txt("nowhere.example.test")).toEqual([]);
    dns.setCname("cname-only.example.test", "target.example.net");
    expect(await resolver.txt("cname-only.example.test")).toEqual([]);
  });

  it("DnsResolver: DnsUnavailableError saying the resolver did not answer in time, after one try", async () => {
    const silent = await startSilentDns();
    try {
      const slow = new DnsResolver({ server: silent.address, timeoutMs: 200 });
      const error = await slow.cnames("www.example.test").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DnsUnavailableError);
      expect((error as DnsUnavailableError).reason).toBe("the resolver did not answer in time");
      expect((error as Error).message).toBe("DNS lookup failed: the resolver did not answer in time");
    } finally {
      await silent.close();
    }
  });

  it("DnsResolver: DnsUnavailableError naming the code of any other failure", async () => {
    // A character-string over 255 bytes cannot be encoded: the answer arrives malformed.
    dns.setTxt("_broken.example.test", ["x".repeat(300)]);
    const error = await resolver.txt("_broken.example.test").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DnsUnavailableError);
    expect((error as DnsUnavailableError).reason).toBe("the resolver answered EBADRESP");
  });
});

describe("DNS_RESOLVER", () => {
  it("startServer: a domain's check asks the resolver DNS_RESOLVER names", async () => {
    // Its own DNS server and process, started inside the test (per-test coverage sees the start).
    const dns = await startTestDns();
    const server = await startTestServer({ dnsResolver: dns.address });
    try {
      const p = await createTestProject(server.urls.api, "dns-resolver");
      dns.setCname("www.resolver.test", "edge.localhost");
      const res = await assignDomain(server.urls.api, p, "www.resolver.test");
      expect(res.status).toBe(200);
      expect(res.body.domain.status).toBe("active");
      expect(dns.questions).toBeGreaterThan(0);
    } finally {
      await server.stop();
      await dns.close();
    }
  });
});
