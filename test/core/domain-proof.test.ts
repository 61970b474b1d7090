import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { challengeRecord, lookForProof } from "../../src/core/operations/index.js";
import { startTestDns, type TestDnsServer } from "../support/dns-server.js";
import { startTestServer } from "../support/server.js";

// The server's own resolver asks a real DNS server on loopback.
describe("lookForProof", () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startTestDns();
    server = await startTestServer({ dnsResolver: dns.address });
  });
  afterAll(async () => {
    await server.stop();
    await dns.close();
  });

  const look = (hostname: string) =>
    lookForProof(server.services.dns, "proof-owner-aaaaa", hostname, "edge.localhost");

  it("lookForProof: a CNAME chain of four links reaches the target, one of five does not", async () => {
    dns.setCname("four.example.com", "four-1.example.com");
    dns.setCname("four-1.example.com", "four-2.example.com");
    dns.setCname("four-2.example.com", "four-3.example.com");
    dns.setCname("four-3.example.com", "edge.localhost");
    expect(await look("four.example.com")).toEqual({
      cname: true,
      txt: false,
      message: "DNS shows four.example.com as a CNAME for edge.localhost",
    });
    dns.setCname("five.example.com", "four.example.com");
    expect(await look("five.example.com")).toMatchObject({ cname: false, txt: false });
  });

  it("lookForProof: the TXT record and the CNAME both shown are both reported, in the TXT record's words", async () => {
    const { name, value } = challengeRecord("proof-owner-aaaaa", "both.example.com");
    dns.setCname("both.example.com", "edge.localhost");
    dns.setTxt(name, [value]);
    expect(await look("both.example.com")).toEqual({
      cname: true,
      txt: true,
      message: `DNS shows the TXT record ${name}`,
    });
  });

  it("lookForProof: neither record shown says which two are missing", async () => {
    expect(await look("bare.example.com")).toEqual({
      cname: false,
      txt: false,
      message:
        "DNS shows neither a CNAME for bare.example.com to edge.localhost nor the TXT record _deploy-challenge.bare.example.com yet",
    });
  });
});
