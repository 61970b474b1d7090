import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidCompletionError, RevisionNotFoundError } from "../../src/core/errors.js";
import { CF, cloudflareFixture } from "../support/cloudflare-api/cloudflare-fixture.js";

const SLUG = "amber-otter-a1b2c";
const OTHER = "brisk-heron-d3e4f";
const HOST = `${SLUG}.sites.test`;
const CUSTOM = "www.example.com";
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** What the platform keeps on Cloudflare (KV records, scripts, custom hostnames) as operations go. */
describe("Cloudflare platform: what it keeps on Cloudflare", () => {
  let f: Awaited<ReturnType<typeof cloudflareFixture>>;
  beforeEach(async () => {
    f = await cloudflareFixture();
  });
  afterEach(async () => {
    await f.api.close();
  });

  const kv = () => f.api.state.kvNamespace(CF.kvNamespaceId);
  const keys = () => [...kv().keys()].sort();
  const read = (key: string): unknown => JSON.parse(kv().get(key) ?? "null");
  const scripts = () => [...f.api.state.scripts.values()];
  const customHostnames = () => [...f.api.state.zone(CF.zoneId).values()].map((h) => h.hostname).sort();
  /** What publishRevision is given for revision rev0000001 of SLUG on HOST, for a day from now, as changed. */
  const publishOf = (
    sessionId: string,
    completionJwt: string,
    changes: Partial<Parameters<typeof f.platform.publishRevision>[0]> = {},
  ) => ({
    projectSlug: SLUG,
    revisionId: "rev0000001",
    sessionId,
    completionJwt,
    hostnames: [HOST],
    expiresAt: new Date(f.clock.now + DAY),
    ...changes,
  });
  /** The calls made since `from` (an index into the stand-in's call log), as `METHOD path`. */
  const callsSince = (from: number) =>
    f.api.calls.slice(from).map((c) => c.replace(/^(\w+) .*\/client\/v4/, "$1 "));

  it("openUploadSession: records the session with its project, a script named after both, and its expiry", async () => {
    const expiresAt = new Date(f.clock.now + HOUR);
    const session = await f.platform.openUploadSession({ projectSlug: SLUG, entries: [], expiresAt });
    expect(session.sessionId).toMatch(/^[0-9a-f]{16}$/);
    expect(read(`session:${session.sessionId}`)).toEqual({
      projectSlug: SLUG,
      script: `${SLUG}--${session.sessionId}`,
      expiresAt: expiresAt.getTime(),
      rules: {},
    });
    expect([...f.api.state.sessions.values()].map((s) => s.script)).toEqual([
      `${SLUG}--${session.sessionId}`,
    ]);
  });

  it("openUploadSession: asks Cloudflare for the manifest's paths, hashes and sizes", async () => {
    const hash = "0123456789abcdef0123456789abcdef";
    const other = hash.replace("0", "f");
    const entries = [
      { path: "/a.txt", hash, size: 3 },
      { path: "/b/index.html", hash: other, size: 5 },
    ];
    await f.platform.openUploadSession({
      projectSlug: SLUG,
      entries,
      expiresAt: new Date(f.clock.now + HOUR),
    });
    expect([...f.api.state.sessions.values()].map((s) => s.manifest)).toEqual([
      { "/a.txt": { hash, size: 3 }, "/b/index.html": { hash: other, size: 5 } },
    ]);
  });

  it("publishRevision: uploads the site module with the project's tag and the assets configuration, and records the script", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "a" });
    const [script] = scripts();
    const sessionId = keys()
      .find((k) => k.startsWith("session:"))!
      .slice("session:".length);
    const name = `${SLUG}--${sessionId}`;
    expect(script).toMatchObject({
      name,
      mainModule: "site.mjs",
      compatibilityDate: "2025-01-01",
      bindings: [{ type: "assets", name: "ASSETS" }],
      tags: [`project-${SLUG}`],
      assetsConfig: { html_handling: "auto-trailing-slash", not_found_handling: "404-page" },
    });
    expect(script!.moduleSource).toContain("env.ASSETS.fetch(request)");
    expect(read(`script:${name}`)).toEqual({ projectSlug: SLUG, sessionId, expiresAt: f.clock.now + HOUR });
  });

  it("publishRevision: the project record and each hostname's entry, the canonical one named by the others, the revision host's marked", async () => {
    const expiresAt = new Date(f.clock.now + DAY);
    await f.deploy(
      SLUG,
      "rev0000001",
      { "/a.txt": "a" },
      { hostnames: [HOST, CUSTOM], canonical: { hostname: CUSTOM, url: `https://${CUSTOM}/` }, expiresAt },
    );
    const script = scripts()[0]!.name;
    expect(read(`project:${SLUG}`)).toEqual({
      revisions: { rev0000001: script },
      production: "rev0000001",
      hostnames: [HOST, CUSTOM],
      canonical: { hostname: CUSTOM, url: `https://${CUSTOM}/` },
      expiresAt: expiresAt.getTime(),
    });
    expect([read(HOST), read(CUSTOM), read(`rev0000001--${HOST}`)]).toEqual([
      { script, expiresAt: expiresAt.getTime(), canonicalUrl: `https://${CUSTOM}/` },
      { script, expiresAt: expiresAt.getTime() },
      // The dispatch Worker caches a revision host's answers as immutable and marks them noindex.
      { script, expiresAt: expiresAt.getTime(), preview: "revision" },
    ]);
  });

  it("publishRevision: a preview first keeps the publish's hostnames and expiry for a later promote", async () => {
    const expiresAt = new Date(f.clock.now + DAY);
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "a" }, { preview: true, expiresAt });
    expect(read(`project:${SLUG}`)).toEqual({
      revisions: { rev0000001: scripts()[0]!.name },
      production: null,
      hostnames: [HOST],
      expiresAt: expiresAt.getTime(),
    });
    expect(keys().filter((k) => !k.includes(":"))).toEqual([`rev0000001--${HOST}`]);
  });

  it("publishRevision: another project's session is refused with InvalidCompletionError; nothing is uploaded or written", async () => {
    const { sessionId, completion } = await f.upload(SLUG, { "/a.txt": "a" });
    const before = keys();
    const refused = f.platform.publishRevision(
      publishOf(sessionId, completion, { projectSlug: OTHER, hostnames: [`${OTHER}.sites.test`] }),
    );
    await expect(refused).rejects.toBeInstanceOf(InvalidCompletionError);
    expect([keys(), scripts()]).toEqual([before, []]);
  });

  it("publishRevision: a completion token at its session's very expiry is refused; nothing is uploaded or written", async () => {
    const { sessionId, completion } = await f.upload(SLUG, { "/a.txt": "a" });
    const before = keys();
    f.clock.now += HOUR;
    const refused = f.platform.publishRevision(publishOf(sessionId, completion));
    await expect(refused).rejects.toThrow(new InvalidCompletionError("completion token expired"));
    expect([keys(), scripts()]).toEqual([before, []]);
  });

  it("publishRevision: the same publish after its session expired only rewrites the hostnames; the script is not uploaded again", async () => {
    const { sessionId, completion } = await f.upload(SLUG, { "/a.txt": "a" });
    const input = publishOf(sessionId, completion);
    await f.platform.publishRevision(input);
    f.clock.now += 2 * HOUR;
    const from = f.api.calls.length;
    await f.platform.publishRevision({ ...input, hostnames: [HOST, `x.${HOST}`] });
    expect(callsSince(from).filter((c) => c.startsWith("PUT ") && c.includes("/scripts/"))).toEqual([]);
    expect((read(`x.${HOST}`) as { script: string }).script).toBe(scripts()[0]!.name);
  });

  it("publishRevision: a completion token Cloudflare refuses is InvalidCompletionError with Cloudflare's reason", async () => {
    const { sessionId } = await f.upload(SLUG, { "/a.txt": "a" });
    const refused = await f.platform.publishRevision(publishOf(sessionId, "forged")).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidCompletionError);
    expect((refused as Error).message).toBe(
      "Cloudflare refused the completion token (HTTP 400, code 10021: assets.jwt is not a completion token for this script)",
    );
    expect([scripts(), read(`project:${SLUG}`), read(HOST)]).toEqual([[], null, null]);
  });

  it("publishRevision: an unknown session is refused with InvalidCompletionError; nothing is uploaded or written", async () => {
    const refused = f.platform.publishRevision(publishOf("0123456789abcdef", "forged"));
    await expect(refused).rejects.toBeInstanceOf(InvalidCompletionError);
    expect([keys(), scripts()]).toEqual([[], []]);
  });

  it("publishRevision: a session recorded without rules hashes (by an older API) publishes", async () => {
    const { sessionId, completion } = await f.upload(SLUG, { "/a.txt": "a" });
    const { rules: _, ...older } = read(`session:${sessionId}`) as { rules: unknown };
    kv().set(`session:${sessionId}`, JSON.stringify(older));
    await f.platform.publishRevision(publishOf(sessionId, completion));
    expect((read(HOST) as { script: string }).script).toBe(`${SLUG}--${sessionId}`);
  });

  it("publishRevision: a later publish moves the project's expiry and its hostnames' entries", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    const later = new Date(f.clock.now + 2 * DAY);
    await f.deploy(SLUG, "rev0000002", { "/a.txt": "two" }, { expiresAt: later });
    expect([
      (read(`project:${SLUG}`) as { expiresAt: number }).expiresAt,
      (read(HOST) as { expiresAt: number }).expiresAt,
    ]).toEqual([later.getTime(), later.getTime()]);
  });

  it("promoteRevision: the project's production and its hostnames' entries name the promoted revision's script", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    const first = scripts()[0]!.name;
    await f.deploy(SLUG, "rev0000002", { "/a.txt": "two" });
    await f.platform.promoteRevision(SLUG, "rev0000001");
    expect([
      (read(`project:${SLUG}`) as { production: string }).production,
      (read(HOST) as { script: string }).script,
    ]).toEqual(["rev0000001", first]);
  });

  it("promoteRevision: a project never published is RevisionNotFoundError", async () => {
    await expect(f.platform.promoteRevision(SLUG, "rev0000001")).rejects.toBeInstanceOf(
      RevisionNotFoundError,
    );
    expect(keys()).toEqual([]);
  });

  it("pruneRevisions: an unknown project, or revisions the project has not, change nothing: the project is only read", async () => {
    await f.platform.pruneRevisions(SLUG, ["rev0000001"]);
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "a" });
    const before = keys();
    const from = f.api.calls.length;
    await f.platform.pruneRevisions(SLUG, ["rev0000009"]);
    expect(callsSince(from)).toEqual([
      `GET /accounts/${CF.accountId}/storage/kv/namespaces/${CF.kvNamespaceId}/values/project%3A${SLUG}`,
    ]);
    expect(keys()).toEqual(before);
  });

  it("pruneRevisions: the pruned revision's host entry, script and script record go; the project no longer names it; production is kept", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    const old = scripts()[0]!.name;
    await f.deploy(SLUG, "rev0000002", { "/a.txt": "two" });
    await f.platform.pruneRevisions(SLUG, ["rev0000001", "rev0000002"]);
    expect(scripts().map((s) => s.name)).not.toContain(old);
    expect(keys()).not.toContain(`script:${old}`);
    expect(keys()).not.toContain(`rev0000001--${HOST}`);
    expect(Object.keys((read(`project:${SLUG}`) as { revisions: object }).revisions)).toEqual(["rev0000002"]);
    expect(scripts()).toHaveLength(1);
    expect(keys()).toContain(`rev0000002--${HOST}`);
  });

  it("updateSite: a project not deployed yet gets a record naming its hostnames, so unpublishProject deletes its custom hostnames; no host answers meanwhile", async () => {
    await f.platform.updateSite(SLUG, { hostnames: [HOST, CUSTOM], expiresAt: new Date(f.clock.now + DAY) });
    expect([keys(), customHostnames()]).toEqual([[`project:${SLUG}`], [CUSTOM]]);
    expect(read(`project:${SLUG}`)).toMatchObject({ production: null, hostnames: [HOST, CUSTOM] });
    await f.platform.unpublishProject(SLUG);
    expect([keys(), customHostnames()]).toEqual([[], []]);
  });

  it("updateSite: only hostnames new to the project are asked of Cloudflare; the dropped ones are removed; revision hosts follow the expiry", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "a" });
    await f.platform.updateSite(SLUG, { hostnames: [HOST, CUSTOM], expiresAt: new Date(f.clock.now + DAY) });
    const from = f.api.calls.length;
    const expiresAt = new Date(f.clock.now + 2 * DAY);
    await f.platform.updateSite(SLUG, {
      hostnames: [HOST, CUSTOM, "b.example.com"],
      canonical: { hostname: CUSTOM, url: `https://${CUSTOM}/` },
      expiresAt,
    });
    expect((read(HOST) as { canonicalUrl?: string }).canonicalUrl).toBe(`https://${CUSTOM}/`);
    expect(callsSince(from).filter((c) => c.startsWith("POST "))).toEqual([
      `POST /zones/${CF.zoneId}/custom_hostnames`,
    ]);
    expect(customHostnames()).toEqual(["b.example.com", CUSTOM]);
    expect((read(`rev0000001--${HOST}`) as { expiresAt: number }).expiresAt).toBe(expiresAt.getTime());
    await f.platform.updateSite(SLUG, { hostnames: [HOST], expiresAt });
    expect(customHostnames()).toEqual([]);
    expect(keys().filter((k) => !k.includes(":"))).toEqual([HOST, `rev0000001--${HOST}`].sort());
  });

  it("unpublishProject: its host entries, project record, scripts, script records and custom hostnames are all gone", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    await f.deploy(SLUG, "rev0000002", { "/a.txt": "two" });
    await f.platform.updateSite(SLUG, { hostnames: [HOST, CUSTOM], expiresAt: new Date(f.clock.now + DAY) });
    await f.deploy(OTHER, "rev0000003", { "/a.txt": "theirs" });
    const theirs = keys().filter((k) => k.includes(OTHER));
    await f.platform.unpublishProject(SLUG);
    expect(keys().filter((k) => !k.startsWith("session:"))).toEqual(theirs);
    expect(scripts().map((s) => s.name.split("--")[0])).toEqual([OTHER]);
    expect(customHostnames()).toEqual([]);
  });

  it("unpublishProject: a script Cloudflare no longer holds is fine, its record goes all the same", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    f.api.state.scripts.clear();
    await f.platform.unpublishProject(SLUG);
    expect(keys().filter((k) => !k.startsWith("session:"))).toEqual([]);
  });

  it("unpublishProject: a script's delete Cloudflare refuses (other than not found) or keeps failing is an error; the project record stays for a retry", async () => {
    await f.deploy(SLUG, "rev0000001", { "/a.txt": "one" });
    for (const status of [409, 503] as const) {
      f.api.faults.add({
        method: "DELETE",
        path: /\/scripts\/[^/]+$/,
        status,
        code: 10001,
        message: "no",
        times: Infinity,
      });
      await expect(f.platform.unpublishProject(SLUG)).rejects.toThrow(
        new RegExp(`HTTP ${status}, code 10001`),
      );
      f.api.faults.clear();
      expect(keys()).toContain(`project:${SLUG}`);
      expect(scripts()).toHaveLength(1);
    }
    await f.platform.unpublishProject(SLUG);
    expect([keys().filter((k) => !k.startsWith("session:")), scripts()]).toEqual([[], []]);
  });

  it("unpublishProject: an unknown project changes nothing", async () => {
    await f.deploy(OTHER, "rev0000003", { "/a.txt": "theirs" });
    const before = keys();
    await f.platform.unpublishProject(SLUG);
    expect([keys(), scripts().length]).toEqual([before, 1]);
  });

  it("sweep: a script a failed publish left unrecorded is deleted once its session expired, with its record and the session's", async () => {
    f.api.faults.add({
      method: "PUT",
      path: new RegExp(`/values/project%3A${SLUG}$`),
      status: 503,
      code: 10001,
      message: "unavailable",
      times: Infinity,
    });
    await expect(f.deploy(SLUG, "rev0000001", { "/a.txt": "a" })).rejects.toThrow(/code 10001/);
    f.api.faults.clear();
    expect(scripts()).toHaveLength(1);
    expect(await f.platform.sweep(new Date(f.clock.now + HOUR - 1))).toEqual({
      blobsDeleted: 0,
      bytesFreed: 0,
    });
    expect(scripts()).toHaveLength(1);
    await f.platform.sweep(new Date(f.clock.now + HOUR));
    expect([scripts(), keys()]).toEqual([[], []]);
  });

  it("sweep: custom hostnames no project names (a crashed request's) are deleted once past the grace, listed from Cloudflare page by page; named ones stay", async () => {
    await f.platform.updateSite(SLUG, { hostnames: [HOST, CUSTOM], expiresAt: new Date(f.clock.now + DAY) });
    const zone = f.api.state.zone(CF.zoneId);
    const at = (ms: number) => new Date(ms).toISOString();
    for (let i = 0; i < 60; i += 1) {
      const hostname = `crashed${i}.example.com`;
      const ssl = { method: "http", type: "dv", status: "pending_validation" };
      zone.set(`id-${i}`, {
        id: `id-${i}`,
        hostname,
        status: "pending",
        ssl,
        created_at: at(f.clock.now - HOUR),
      });
    }
    const fresh = { method: "http", type: "dv", status: "pending_validation" };
    zone.set("id-new", {
      id: "id-new",
      hostname: "new.example.com",
      status: "pending",
      ssl: fresh,
      created_at: at(f.clock.now),
    });
    await f.platform.sweep(new Date(f.clock.now));
    expect(customHostnames()).toEqual(["new.example.com", CUSTOM]);
    await f.platform.sweep(new Date(f.clock.now + HOUR));
    expect(customHostnames()).toEqual([CUSTOM]);
  });
});
