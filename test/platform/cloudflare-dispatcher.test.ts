import { describe, expect, it } from "vitest";
import dispatcher from "../../src/platform/cloudflare/dispatcher/dispatcher.js";

/** Cloudflare's bindings (a third party's), as plain objects: KV entries, and scripts that answer their name. */
function env(entries: Record<string, unknown>, scripts: string[]) {
  return {
    SITES: { get: async (key: string) => entries[key] ?? null },
    DISPATCHER: {
      get: (name: string) => ({
        fetch: async (request: Request) => {
          if (!scripts.includes(name)) throw new Error("Worker not found.");
          return new Response(`${name} ${new URL(request.url).pathname}`);
        },
      }),
    },
  };
}

const later = Date.now() + 3_600_000;

describe("dispatch Worker", () => {
  it("fetch: forwards a known host to its script", async () => {
    const reply = await dispatcher.fetch(
      new Request("http://a.sites.test/x"),
      env({ "a.sites.test": { script: "s1", expiresAt: later } }, ["s1"]),
    );
    expect(reply.status).toBe(200);
    expect(await reply.text()).toBe("s1 /x");
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
      expect([host, reply.status, await reply.text()]).toEqual([host, 404, "Not Found\n"]);
    }
  });

  it("fetch: a host other than the canonical one names it in a Link header, path kept", async () => {
    const e = env(
      { "a.sites.test": { script: "s1", expiresAt: later, canonicalUrl: "https://www.example.com/" } },
      ["s1"],
    );
    const reply = await dispatcher.fetch(new Request("http://a.sites.test/docs/a.html"), e);
    expect(reply.headers.get("link")).toBe('<https://www.example.com/docs/a.html>; rel="canonical"');
  });
});
