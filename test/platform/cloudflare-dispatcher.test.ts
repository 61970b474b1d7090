import { afterEach, describe, expect, it, vi } from "vitest";
import dispatcher from "../../src/platform/cloudflare/dispatcher/dispatcher.js";

/**
 * Cloudflare's bindings (a third party's), as plain objects: KV entries, read as KV reads them
 * (parsed only when asked for "json"), and scripts that answer their name and path. `asked` lists
 * the keys read.
 */
function env(entries: Record<string, unknown>, scripts: string[]) {
  const asked: string[] = [];
  return {
    asked,
    SITES: {
      get: async (key: string, type?: string) => {
        asked.push(key);
        if (!(key in entries)) return null;
        return type === "json" ? entries[key] : JSON.stringify(entries[key]);
      },
    },
    DISPATCHER: {
      // A binding's name is a string: what it is given is read as one, as JavaScript does.
      get: (name: unknown) => ({
        fetch: async (request: Request) => {
          if (!scripts.includes(String(name))) throw new Error("Worker not found.");
          return new Response(`${String(name)} ${new URL(request.url).pathname}`, {
            status: 203,
            headers: { "x-site": "1" },
          });
        },
      }),
    },
  };
}

const later = Date.now() + 3_600_000;

describe("dispatch Worker", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fetch: forwards a known host to its script, its reply as the script gave it, without a Link header", async () => {
    const reply = await dispatcher.fetch(
      new Request("http://a.sites.test/x"),
      env({ "a.sites.test": { script: "s1", expiresAt: later } }, ["s1"]),
    );
    expect([reply.status, reply.headers.get("x-site"), reply.headers.get("link")]).toEqual([203, "1", null]);
    expect(await reply.text()).toBe("s1 /x");
  });

  it("fetch: a host written with a trailing dot is the same host", async () => {
    const e = env({ "a.sites.test": { script: "s1", expiresAt: later } }, ["s1"]);
    const reply = await dispatcher.fetch(new Request("http://a.sites.test./x"), e);
    expect([reply.status, await reply.text()]).toEqual([203, "s1 /x"]);
    expect(e.asked).toEqual(["a.sites.test"]);
  });

  it("fetch: an unknown host, an expired project and a deleted script answer 404", async () => {
    const e = env(
      {
        "old.sites.test": { script: "s1", expiresAt: Date.now() - 1 },
        "gone.sites.test": { script: "s9", expiresAt: later },
      },
      ["s1"],
    );
    for (const host of ["nobody.sites.test", "old.sites.test", "gone.sites.test", "bad_host.test"]) {
      const reply = await dispatcher.fetch(new Request(`http://${host}/`), e);
      expect([host, reply.status, reply.headers.get("content-type"), await reply.text()]).toEqual([
        host,
        404,
        "text/plain; charset=utf-8",
        "Not Found\n",
      ]);
    }
  });

  it("fetch: a host that is not a hostname answers 404 without being looked up", async () => {
    const e = env({ "bad_host.test": { script: "s1", expiresAt: later } }, ["s1"]);
    const reply = await dispatcher.fetch(new Request("http://bad_host.test/"), e);
    expect(reply.status).toBe(404);
    expect(e.asked).toEqual([]);
  });

  it("fetch: a project expiring this very millisecond answers 404", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse("2030-01-01T00:00:00Z") });
    const e = env({ "a.sites.test": { script: "s1", expiresAt: Date.now() } }, ["s1"]);
    const reply = await dispatcher.fetch(new Request("http://a.sites.test/"), e);
    expect(reply.status).toBe(404);
  });

  it("fetch: an entry that is not a host entry (script or expiry of the wrong type) answers 404", async () => {
    const e = env(
      {
        "a.sites.test": { script: ["s1"], expiresAt: later },
        "b.sites.test": { script: "s1", expiresAt: String(later) },
        "c.sites.test": "s1",
      },
      ["s1"],
    );
    for (const host of ["a.sites.test", "b.sites.test", "c.sites.test"]) {
      const reply = await dispatcher.fetch(new Request(`http://${host}/`), e);
      expect([host, reply.status]).toEqual([host, 404]);
    }
  });

  it("fetch: a host other than the canonical one names it in a Link header, path kept, the script's reply kept", async () => {
    const e = env(
      { "a.sites.test": { script: "s1", expiresAt: later, canonicalUrl: "https://www.example.com/" } },
      ["s1"],
    );
    const reply = await dispatcher.fetch(new Request("http://a.sites.test/docs/a.html"), e);
    expect(reply.headers.get("link")).toBe('<https://www.example.com/docs/a.html>; rel="canonical"');
    expect([reply.status, reply.headers.get("x-site"), await reply.text()]).toEqual([
      203,
      "1",
      "s1 /docs/a.html",
    ]);
  });
});
