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

  /** A script answering as Cloudflare's asset server does: by path, bodiless redirects and misses. */
  function assets(
    answers: Record<string, { status: number; headers?: Record<string, string>; body?: string }>,
  ) {
    return {
      SITES: { get: async () => ({ script: "s1", expiresAt: later }) },
      DISPATCHER: {
        get: () => ({
          fetch: async (request: Request) => {
            const answer = answers[new URL(request.url).pathname] ?? { status: 404 };
            return new Response(answer.body ?? null, { status: answer.status, headers: answer.headers });
          },
        }),
      },
    };
  }

  it("fetch: Cloudflare's canonical 307 is a 308 with our text; a 307 elsewhere stays 307; both no longer bodiless", async () => {
    const e = assets({
      "/a.html": { status: 307, headers: { location: "/a" } },
      "/old": { status: 307, headers: { location: "/new" } },
    });
    const moved = await dispatcher.fetch(new Request("http://a.sites.test/a.html"), e);
    expect([moved.status, moved.headers.get("location"), await moved.text()]).toEqual([
      308,
      "/a",
      "Permanent Redirect\n",
    ]);
    expect(moved.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const ruled = await dispatcher.fetch(new Request("http://a.sites.test/old"), e);
    expect([ruled.status, await ruled.text()]).toEqual([307, "Temporary Redirect\n"]);
  });

  it("fetch: a navigation no 404 page answered gets the site's /; another request a plain, unkept 404", async () => {
    const e = assets({ "/": { status: 200, headers: { etag: '"h"' }, body: "shell" } });
    const html = { accept: "text/html" };
    const page = await dispatcher.fetch(new Request("http://a.sites.test/deep/link", { headers: html }), e);
    expect([page.status, await page.text()]).toEqual([200, "shell"]);
    const miss = await dispatcher.fetch(new Request("http://a.sites.test/app.js"), e);
    expect([miss.status, await miss.text(), miss.headers.get("cache-control")]).toEqual([
      404,
      "Not Found\n",
      "no-store",
    ]);
    expect(miss.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("fetch: a 404 page (it has an ETag) is kept as the site's answer, even for a navigation", async () => {
    const e = assets({
      "/": { status: 200, headers: { etag: '"h"' }, body: "shell" },
      "/x": {
        status: 404,
        headers: { etag: '"p"', "cache-control": "public, max-age=0, must-revalidate" },
        body: "lost",
      },
    });
    const reply = await dispatcher.fetch(
      new Request("http://a.sites.test/x", { headers: { accept: "text/html" } }),
      e,
    );
    expect([reply.status, await reply.text(), reply.headers.get("cache-control")]).toEqual([
      404,
      "lost",
      "no-store",
    ]);
  });
});
