import Cloudflare from "cloudflare";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KvStore } from "../../src/platform/cloudflare/kv-store.js";
import { sweepLeftovers } from "../../src/platform/cloudflare/sweep-leftovers.js";
import { CF } from "../support/cloudflare-api/cloudflare-fixture.js";
import { type CloudflareApi, startCloudflareApi } from "../support/cloudflare-api/server.js";

const NOW = Date.parse("2030-01-01T00:00:00Z");

/** The sweep of the platform's KV records, against the stand-in's Workers KV. */
describe("Cloudflare platform: sweep of leftovers", () => {
  let api: CloudflareApi;
  let kv: KvStore;
  beforeEach(async () => {
    api = await startCloudflareApi({ apiToken: CF.apiToken, now: () => NOW });
    const client = new Cloudflare({ apiToken: CF.apiToken, baseURL: api.url, maxRetries: 0 });
    kv = new KvStore(client, CF.accountId, CF.kvNamespaceId, {
      budgetMs: 0,
      now: () => NOW,
      sleep: async () => {},
    });
  });
  afterEach(async () => {
    await api.close();
  });

  const held = () => api.state.kvNamespace(CF.kvNamespaceId);
  const write = (key: string, value: unknown) => held().set(key, JSON.stringify(value));
  /** Runs the sweep, recording the scripts it deletes (and deleting their records, as the platform does). */
  async function sweep(now = NOW): Promise<{ deleted: number; scripts: string[] }> {
    const scripts: string[] = [];
    const deleted = await sweepLeftovers(kv, now, async (script) => {
      scripts.push(script);
      held().delete(`script:${script}`);
    });
    return { deleted, scripts };
  }

  it("sweep: a session record is removed once it expired, at its very expiry; a live one is kept", async () => {
    write("session:a", { projectSlug: "p", script: "p--a", expiresAt: NOW });
    write("session:b", { projectSlug: "p", script: "p--b", expiresAt: NOW + 1 });
    write("project:p", { revisions: {}, production: null, hostnames: [], expiresAt: NOW });
    expect(await sweep()).toEqual({ deleted: 0, scripts: [] });
    expect([...held().keys()].sort()).toEqual(["project:p", "session:b"]);
  });

  it("sweep: an expired script no project names is deleted and counted; a live one, or one its project names, is kept", async () => {
    write("project:p", {
      revisions: { rev1: "p--named" },
      production: "rev1",
      hostnames: [],
      expiresAt: NOW,
    });
    write("script:p--named", { projectSlug: "p", sessionId: "s1", expiresAt: NOW - 1 });
    write("script:p--crashed", { projectSlug: "p", sessionId: "s2", expiresAt: NOW });
    write("script:p--live", { projectSlug: "p", sessionId: "s3", expiresAt: NOW + 1 });
    write("script:q--orphan", { projectSlug: "q", sessionId: "s4", expiresAt: NOW - 1 });
    expect(await sweep()).toEqual({ deleted: 2, scripts: ["p--crashed", "q--orphan"] });
    expect([...held().keys()].sort()).toEqual(["project:p", "script:p--live", "script:p--named"]);
  });

  it("sweep: a script record another sweep removed meanwhile is skipped", async () => {
    write("script:p--a", { projectSlug: "p", sessionId: "s1", expiresAt: NOW - 1 });
    write("script:p--b", { projectSlug: "p", sessionId: "s2", expiresAt: NOW - 1 });
    const scripts: string[] = [];
    const deleted = await sweepLeftovers(kv, NOW, async (script) => {
      scripts.push(script);
      // Another API instance's sweep, at the same time, took both.
      held().delete("script:p--a");
      held().delete("script:p--b");
    });
    expect([deleted, scripts]).toEqual([1, ["p--a"]]);
  });

  it("sweep: a session record another sweep removed meanwhile is skipped", async () => {
    write("session:a", { projectSlug: "p", script: "p--a", expiresAt: NOW - 1 });
    write("session:b", { projectSlug: "p", script: "p--b", expiresAt: NOW - 1 });
    // Another API instance's sweep removes session:b between this one's listing and its read.
    const push = api.calls.push.bind(api.calls);
    api.calls.push = (...calls: string[]) => {
      if (calls.some((c) => /^GET .*\/values\/session(%3A|:)b$/.test(c))) held().delete("session:b");
      return push(...calls);
    };
    expect(await sweep()).toEqual({ deleted: 0, scripts: [] });
    expect([...held().keys()]).toEqual([]);
  });

  it("keys: every key with the prefix, and only those", async () => {
    write("session:a", {});
    write("session:b", {});
    write("script:p--a", {});
    write("sessions", {});
    expect(await kv.keys("session:")).toEqual(["session:a", "session:b"]);
    expect(await kv.keys("nothing:")).toEqual([]);
  });
});
