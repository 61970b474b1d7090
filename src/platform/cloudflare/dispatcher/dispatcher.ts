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
  preview?: "revision" | "alias";
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
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

function isHostEntry(value: unknown): value is HostEntry {
  const entry = value as HostEntry | null;
  return typeof entry?.script === "string" && typeof entry.expiresAt === "number";
}

/** Cloudflare's (and our production hosts') caching: browsers ask again every time. */
const BROWSER_CACHE = "public, max-age=0, must-revalidate";

const TEXT: Record<number, string> = {
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  404: "Not Found",
};

/** Whether a 307 is Cloudflare's canonical-URL redirect (html_handling), not a `_redirects` rule's. */
function isCanonicalMove(url: URL, location: string): boolean {
  const to = new URL(location, url);
  if (to.origin !== url.origin || to.search !== url.search) return false;
  const from = url.pathname;
  const moves = [`${from}/`, from.replace(/\/$/, ""), from.replace(/(\.html|index\.html|index)$/, "")];
  return to.pathname !== from && moves.includes(to.pathname);
}

/**
 * Cloudflare's answer made the built-in edge's (docs/contract.md §7): the canonical move is a 308;
 * a redirect or a plain 404, bodiless on Cloudflare, gets the edge's short text; a 404 is never
 * kept; a 304 carries no Content-Type; every answer is nosniff.
 */
function asEdgeAnswers(request: Request, url: URL, response: Response, entry: HostEntry): Response {
  let status = response.status;
  const location = response.headers.get("location");
  if (status === 307 && location !== null && isCanonicalMove(url, location)) status = 308;
  const headers = new Headers(response.headers);
  headers.set("x-content-type-options", "nosniff");
  let body: ReadableStream<Uint8Array> | string | null = response.body;
  const text = TEXT[status];
  // A page (a file, the 404 page) has an ETag; Cloudflare's own answers have neither it nor a body.
  if (text !== undefined && !headers.has("etag")) {
    body = request.method === "HEAD" ? null : `${text}\n`;
    headers.set("content-type", "text/plain; charset=utf-8");
    if (!headers.has("cache-control")) headers.set("cache-control", BROWSER_CACHE);
  }
  // A revision host's content never changes: Cloudflare's default caching becomes immutable.
  if (entry.preview === "revision" && headers.get("cache-control") === BROWSER_CACHE)
    headers.set("cache-control", "public, max-age=31536000, immutable");
  // Never indexed; a plain 404 (no page) carries nothing to index, as on the built-in edge.
  if (entry.preview !== undefined && (status !== 404 || headers.has("etag")))
    headers.set("x-robots-tag", "noindex");
  if (status === 404) headers.set("cache-control", "no-store");
  if (status === 304) headers.delete("content-type");
  return new Response(body, { status, headers });
}

/** A navigation asks for HTML; an image, a script or an API call does not, and gets the 404. */
function isNavigation(request: Request): boolean {
  const accept = request.headers.get("accept");
  const get = request.method === "GET" || request.method === "HEAD";
  return get && accept !== null && accept.toLowerCase().includes("text/html");
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
      const site = env.DISPATCHER.get(entry.script);
      response = await site.fetch(request);
      // No 404 page answered: a navigation gets the site's `/`, the single-page app's page.
      if (response.status === 404 && !response.headers.has("etag") && isNavigation(request)) {
        const shell = await site.fetch(new Request(new URL("/", url), request));
        if (shell.status === 200 || shell.status === 304) response = shell;
      }
    } catch {
      // The script is gone (a pruned revision, a deleted project): the host no longer answers.
      return notFound();
    }
    const answer = asEdgeAnswers(request, url, response, entry);
    if (entry.canonicalUrl === undefined) return answer;
    answer.headers.set("link", `<${entry.canonicalUrl}${url.pathname.slice(1)}>; rel="canonical"`);
    return answer;
  },
};
