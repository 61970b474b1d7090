import type { Clock } from "../../src/core/clock.js";
import type { RunningProcess } from "../../src/server/start.js";
import { startProcessBed, type TestBed } from "../client/helpers.js";
import { CF } from "./cloudflare-api/cloudflare-fixture.js";
import { type CloudflareApi, startCloudflareApi } from "./cloudflare-api/server.js";
import { startTestDns, type TestDnsServer } from "./dns-server.js";

/** A process with PLATFORM=cloudflare, the Cloudflare API stand-in it calls and the DNS it asks. */
export interface CloudflareProcessBed {
  api: CloudflareApi;
  dns: TestDnsServer;
  bed: TestBed<RunningProcess>;
  /** Stops the process, then the DNS server, then the API stand-in. */
  stop(): Promise<void>;
}

/**
 * Starts the Cloudflare API stand-in, a DNS server and an API process on `sites.test` whose
 * custom hostnames must point at `edge.sites.test`, with its time read from `clock`.
 */
export async function startCloudflareProcessBed(clock: Clock): Promise<CloudflareProcessBed> {
  const api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => Date.now() });
  const dns = await closingOnFailure(startTestDns(), [api]);
  const bed = await closingOnFailure(
    startProcessBed({
      sitesDomain: "sites.test",
      cnameTarget: "edge.sites.test",
      dnsResolver: dns.address,
      cloudflare: { ...CF, apiBaseUrl: api.url },
      clock,
    }),
    [dns, api],
  );
  return {
    api,
    dns,
    bed,
    async stop() {
      await bed.stop();
      await dns.close();
      await api.close();
    },
  };
}

/** Waits for `starting`; if it fails, closes what had started (nobody else can) and rethrows. */
async function closingOnFailure<T>(starting: Promise<T>, started: { close(): Promise<void> }[]): Promise<T> {
  try {
    return await starting;
  } catch (error) {
    for (const server of started) await server.close();
    throw error;
  }
}
