/**
 * The dispatch Worker: it runs on `*.SITES_DOMAIN` and as the fallback origin of custom hostnames,
 * reads the request's host, looks it up in the published manifest (Workers KV: hostname → script)
 * and forwards the request to that script of the dispatch namespace. An unknown or expired host is
 * a 404, as on the built-in edge. It imports nothing: it is uploaded as one module.
 */

interface HostEntry {
  script: string;
  expiresAt: number;
  canonicalUrl?: string;
}

interface DispatcherEnv {
  /** The published manifest. */
  SITES: { get(key: string, type: "json"): Promise<unknown> };
  /** The Workers for Platforms dispatch namespace. */
  DISPATCHER: { get(name: string): { fetch(request: Request): Promise<Response> } };
}

const HOSTNAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

function notFound(): Response {
  return new Response("Not Found\n", {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

function isHostEntry(value: unknown): value is HostEntry {
  const entry = value as HostEntry | null;
  return typeof entry?.script === "string" && typeof entry.expiresAt === "number";
}

export default {
  async fetch(request: Request, env: DispatcherEnv): Promise<Response> {
    const url = new URL(request.url);
    const host = url.hostname.toLowerCase().replace(/\.$/, "");
    if (!HOSTNAME.test(host)) return notFound();
    const entry = await env.SITES.get(host, "json");
    if (!isHostEntry(entry) || entry.expiresAt <= Date.now()) return notFound();
    let response: Response;
    try {
      response = await env.DISPATCHER.get(entry.script).fetch(request);
    } catch {
      // The script is gone (a pruned revision, a deleted project): the host no longer answers.
      return notFound();
    }
    if (entry.canonicalUrl === undefined) return response;
    const named = new Response(response.body, response);
    named.headers.set("link", `<${entry.canonicalUrl}${url.pathname.slice(1)}>; rel="canonical"`);
    return named;
  },
};
