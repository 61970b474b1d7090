import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CF, cloudflareFixture } from "../support/cloudflare-api/cloudflare-fixture.js";
import { WorkersRuntime } from "../support/cloudflare-api/workers-runtime.js";
import { startTestEdge, type TestEdge } from "../support/edge-site.js";
import {
  decodedBody,
  differences,
  type ParityAnswer,
  type ParityRequest,
  requestOf,
  VARIANTS,
} from "./parity/exchange.js";
import { PARITY_SITES, type ParitySite } from "./parity/sites.js";
import { PARITY_ALLOWED } from "./parity/allowed.js";

/** The `_headers` field names a site's rules set or remove, lowercase, and X-Robots-Tag (previews). */
function ruledNames(site: ParitySite): string[] {
  const text = site.files["/_headers"] ?? "";
  const named = [...text.matchAll(/^\s+!?\s*([A-Za-z0-9-]+)/gm)].map((m) => m[1]!.toLowerCase());
  return [...named, "x-robots-tag"];
}

/**
 * Issue 34: the same folders deployed to the built-in platform and to the Cloudflare platform
 * (served by workerd through the repository's dispatch Worker), the same requests to both; any
 * difference in status, Location, body, Content-Type, Cache-Control or a `_headers` field fails,
 * but those on the allow-list (parity/allowed.ts, each with its reason; docs/contract.md §7).
 */
describe("parity: the built-in edge and Cloudflare answer the same", () => {
  let edge: TestEdge;
  let f: Awaited<ReturnType<typeof cloudflareFixture>>;
  let runtime: WorkersRuntime;
  const requests: ParityRequest[] = [];
  let workers = "";

  beforeAll(async () => {
    edge = await startTestEdge();
    f = await cloudflareFixture();
    runtime = new WorkersRuntime(f.api.state, {
      namespace: CF.dispatchNamespace,
      kvNamespaceId: CF.kvNamespaceId,
      dir: (workers = mkdtempSync(join(tmpdir(), "parity-workers-"))),
    });
    for (const [i, site] of PARITY_SITES.entries()) {
      const revisionId = `par${String(i).padStart(7, "0")}`;
      await edge.publish({ slug: site.slug, revisionId, files: site.files });
      const redirects = site.files["/_redirects"];
      const headers = site.files["/_headers"];
      await f.deploy(site.slug, revisionId, site.files, {
        siteRules: {
          ...(redirects === undefined ? {} : { redirects }),
          ...(headers === undefined ? {} : { headers }),
        },
      });
      const hosts = [`${site.slug}.sites.test`];
      // Revision hosts too, for the sites that have `_headers` (immutable caching, noindex).
      if (site.files["/_headers"] !== undefined) hosts.push(`${revisionId}--${site.slug}.sites.test`);
      for (const host of hosts)
        for (const path of site.paths)
          for (const variant of VARIANTS) requests.push({ site: site.slug, host, path, variant });
    }
  }, 120_000);
  afterAll(async () => {
    await runtime?.close();
    await f?.api.close();
    await edge?.close();
    if (workers !== "") rmSync(workers, { recursive: true, force: true });
  });

  async function ours(req: ParityRequest, ruled: string[], etag?: string): Promise<ParityAnswer> {
    const { method, headers } = requestOf(req.variant, etag);
    const reply = await edge.get(req.host, req.path, headers, method);
    const one = (name: string) => {
      const value = reply.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    };
    return {
      status: reply.status,
      location: one("location"),
      body: decodedBody(reply.body, one("content-encoding")),
      contentType: one("content-type"),
      cacheControl: one("cache-control"),
      ruled: Object.fromEntries(ruled.map((name) => [name, one(name)])),
      etag: one("etag"),
    };
  }

  async function theirs(req: ParityRequest, ruled: string[], etag?: string): Promise<ParityAnswer> {
    const init = requestOf(req.variant, etag);
    const reply = await runtime.fetch(req.host, req.path, init);
    const one = (name: string) => reply.headers.get(name) ?? undefined;
    // miniflare's fetch decodes the content coding itself.
    const body = Buffer.from(await reply.arrayBuffer()).toString();
    return {
      status: reply.status,
      location: one("location"),
      body,
      contentType: one("content-type"),
      cacheControl: one("cache-control"),
      ruled: Object.fromEntries(ruled.map((name) => [name, one(name)])),
      etag: one("etag"),
    };
  }

  it("every request: the same status, Location, body, Content-Type, Cache-Control and _headers fields, but the allow-list", async () => {
    expect(requests.length).toBeGreaterThanOrEqual(300);
    const unexplained: string[] = [];
    const allowedSeen = new Map<string, number>();
    for (const req of requests) {
      const site = PARITY_SITES.find((s) => s.slug === req.site)!;
      const ruled = ruledNames(site);
      let etags: [string | undefined, string | undefined] = [undefined, undefined];
      if (req.variant === "conditional") {
        const plain = { ...req, variant: "get" as const };
        etags = [(await ours(plain, ruled)).etag, (await theirs(plain, ruled)).etag];
      }
      const a = await ours(req, ruled, etags[0]);
      const b = await theirs(req, ruled, etags[1]);
      for (const difference of differences(a, b)) {
        const allowed = PARITY_ALLOWED.find((entry) => entry.applies(req, difference, a, b));
        if (allowed) allowedSeen.set(allowed.name, (allowedSeen.get(allowed.name) ?? 0) + 1);
        else unexplained.push(`${req.host}${req.path} [${req.variant}] ${difference}`);
      }
    }
    // PARITY_REPORT=file writes every unexplained difference there (when working on the list).
    if (process.env.PARITY_REPORT) writeFileSync(process.env.PARITY_REPORT, unexplained.join("\n") + "\n");
    expect(unexplained).toEqual([]);
    // An entry no difference needs any more is taken off the list (and docs/contract.md §7).
    expect(PARITY_ALLOWED.filter((entry) => !allowedSeen.has(entry.name)).map((e) => e.name)).toEqual([]);
  }, 300_000);
});
