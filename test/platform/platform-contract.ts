import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashAsset } from "../../src/core/asset-hash.js";
import {
  AliasLimitError,
  InvalidCompletionError,
  InvalidSiteConfigError,
  RevisionNotFoundError,
} from "../../src/core/errors.js";
import type { ManifestEntry } from "../../src/core/manifest.js";
import {
  MAX_ALIASES,
  type Platform,
  type PublishInput,
  type UploadSession,
} from "../../src/core/ports/index.js";
import { uploadBucket } from "../support/multipart.js";

/** What the contract needs of a platform under test: the port, its edge, and its clock. */
export interface PlatformHarness {
  platform: Platform;
  /** Fetches `path` from the site answering on `hostname`, as the platform's edge serves it. */
  fetchSite(hostname: string, path: string): Promise<{ status: number; body: string; link?: string }>;
  /** The platform's clock, in milliseconds since the epoch; tests move it forward. */
  clock: { now: number };
  close(): Promise<void>;
}

const HOUR = 60 * 60 * 1000;

/** Site files as a manifest, with their bytes by hash. */
async function siteOf(files: Record<string, string>) {
  const entries: ManifestEntry[] = [];
  const bytes = new Map<string, Buffer>();
  for (const [path, text] of Object.entries(files)) {
    const body = Buffer.from(text);
    const hash = await hashAsset(body, path);
    entries.push({ path, hash, size: body.length });
    bytes.set(hash, body);
  }
  return { entries, bytes };
}

/**
 * What a platform does by its nature, where the contract's behaviour does not apply. Each says why.
 * The built-in platform has every one; Cloudflare's (docs/cloudflare.md, "What differs"):
 */
export interface PlatformTraits {
  /** Content is proven per project (Cloudflare shares assets by hash across a dispatch namespace). */
  contentPerProject: boolean;
  /** The sweep reclaims content (Cloudflare keeps and reclaims asset storage itself). */
  reclaimsContent: boolean;
}

const BUILT_IN: PlatformTraits = { contentPerProject: true, reclaimsContent: true };

/**
 * The behaviour every `Platform` implementation must have, driven through the port and the
 * platform's own upload protocol (Cloudflare's bucket upload, at the URL the session names). `open`
 * gives a fresh, empty platform each time; each test opens one and closes it.
 */
export function platformContract(
  name: string,
  open: () => Promise<PlatformHarness>,
  traits: PlatformTraits = BUILT_IN,
): void {
  describe(`platform contract: ${name}`, () => {
    let h: PlatformHarness;
    beforeEach(async () => {
      h = await open();
    });
    afterEach(async () => {
      await h.close();
    });

    const expiresIn = (ms: number) => new Date(h.clock.now + ms);

    // What the client sends at deploy of the rules files it uploaded, by session.
    const rulesOf = new Map<string, PublishInput["siteRules"]>();

    /** Opens a session for `files`, uploads every bucket, and returns the completion token. */
    async function uploadAll(projectSlug: string, files: Record<string, string>) {
      const { entries, bytes } = await siteOf(files);
      const session = await h.platform.openUploadSession({
        projectSlug,
        entries,
        expiresAt: expiresIn(HOUR),
      });
      let completion = session.buckets.length === 0 ? session.uploadJwt : undefined;
      for (const bucket of session.buckets) {
        const parts = bucket.map((hash) => ({ hash, bytes: bytes.get(hash)! }));
        const reply = await uploadBucket(session.uploadUrl, session.uploadJwt, parts);
        expect([201, 202]).toContain(reply.status);
        if (reply.status === 201) completion = reply.body.result.jwt as string;
      }
      rulesOf.set(session.sessionId, { redirects: files["/_redirects"], headers: files["/_headers"] });
      return { session, completion: completion!, entries };
    }

    function publish(
      projectSlug: string,
      revisionId: string,
      session: UploadSession,
      jwt: string,
      preview = false,
      alias?: string,
    ) {
      return h.platform.publishRevision({
        projectSlug,
        revisionId,
        sessionId: session.sessionId,
        completionJwt: jwt,
        hostnames: [`${projectSlug}.sites.test`],
        expiresAt: expiresIn(24 * HOUR),
        preview,
        siteRules: rulesOf.get(session.sessionId),
        ...(alias === undefined ? {} : { alias }),
      });
    }

    /** Uploads and publishes `files` as `revisionId` of `slug`. */
    async function deployRevision(
      slug: string,
      revisionId: string,
      files: Record<string, string>,
      preview = false,
      alias?: string,
    ) {
      const { session, completion } = await uploadAll(slug, files);
      await publish(slug, revisionId, session, completion, preview, alias);
    }

    const SLUG = "amber-otter-a1b2c";
    const production = (path: string) => h.fetchSite(`${SLUG}.sites.test`, path);
    const revisionHost = (revisionId: string, path: string) =>
      h.fetchSite(`${revisionId}--${SLUG}.sites.test`, path);

    it("publishRevision: a preview is served on its revision host; production stays where it was", async () => {
      await deployRevision(SLUG, "rev0000001", { "/a.txt": "live" });
      await deployRevision(SLUG, "rev0000002", { "/a.txt": "preview" }, true);
      expect(await production("/a.txt")).toEqual({ status: 200, body: "live" });
      expect(await revisionHost("rev0000002", "/a.txt")).toEqual({ status: 200, body: "preview" });
    });

    it("publishRevision: a preview as the first publish leaves production answering 404", async () => {
      await deployRevision(SLUG, "rev0000001", { "/a.txt": "preview" }, true);
      expect((await production("/a.txt")).status).toBe(404);
      expect(await revisionHost("rev0000001", "/a.txt")).toEqual({ status: 200, body: "preview" });
    });

    it("publishRevision: an alias host serves the aliased preview and moves to the next revision with that alias", async () => {
      const aliasHost = (alias: string, path: string) => h.fetchSite(`${alias}--${SLUG}.sites.test`, path);
      await deployRevision(SLUG, "rev0000001", { "/a.txt": "live" });
      await deployRevision(SLUG, "rev0000002", { "/a.txt": "staging one" }, true, "staging");
      expect(await aliasHost("staging", "/a.txt")).toEqual({ status: 200, body: "staging one" });
      expect((await aliasHost("other", "/a.txt")).status).toBe(404);
      await deployRevision(SLUG, "rev0000003", { "/a.txt": "staging two" }, true, "staging");
      await deployRevision(SLUG, "rev0000004", { "/a.txt": "other" }, true, "other");
      expect(await aliasHost("staging", "/a.txt")).toEqual({ status: 200, body: "staging two" });
      expect(await aliasHost("other", "/a.txt")).toEqual({ status: 200, body: "other" });
      expect(await revisionHost("rev0000002", "/a.txt")).toEqual({ status: 200, body: "staging one" });
      expect(await production("/a.txt")).toEqual({ status: 200, body: "live" });
      // A pruned revision takes its alias with it; unpublishing takes them all.
      await h.platform.pruneRevisions(SLUG, ["rev0000004"]);
      expect((await aliasHost("other", "/a.txt")).status).toBe(404);
      await h.platform.unpublishProject(SLUG);
      expect((await aliasHost("staging", "/a.txt")).status).toBe(404);
    });

    it("publishRevision: one alias more than MAX_ALIASES is refused with AliasLimitError and publishes nothing; moving one is fine", async () => {
      for (let i = 0; i < MAX_ALIASES; i++) {
        await deployRevision(SLUG, `rev${String(i).padStart(7, "0")}`, { "/a.txt": `n${i}` }, true, `a${i}`);
      }
      const { session, completion } = await uploadAll(SLUG, { "/a.txt": "one too many" });
      await expect(publish(SLUG, "revextra01", session, completion, true, "too-many")).rejects.toBeInstanceOf(
        AliasLimitError,
      );
      expect((await revisionHost("revextra01", "/a.txt")).status).toBe(404);
      expect((await h.fetchSite(`too-many--${SLUG}.sites.test`, "/a.txt")).status).toBe(404);
      await publish(SLUG, "revextra01", session, completion, true, "a0");
      expect(await h.fetchSite(`a0--${SLUG}.sites.test`, "/a.txt")).toEqual({
        status: 200,
        body: "one too many",
      });
    });

    it("promoteRevision: production serves the older revision on the next request; again changes nothing", async () => {
      await deployRevision(SLUG, "rev0000001", { "/a.txt": "one" });
      await deployRevision(SLUG, "rev0000002", { "/a.txt": "two" });
      expect(await production("/a.txt")).toEqual({ status: 200, body: "two" });
      await h.platform.promoteRevision(SLUG, "rev0000001");
      expect(await production("/a.txt")).toEqual({ status: 200, body: "one" });
      await h.platform.promoteRevision(SLUG, "rev0000001");
      expect(await production("/a.txt")).toEqual({ status: 200, body: "one" });
      // Both revisions still answer on their own hosts.
      expect(await revisionHost("rev0000002", "/a.txt")).toEqual({ status: 200, body: "two" });
    });

    it("promoteRevision: RevisionNotFoundError for a revision the project has not, production unchanged", async () => {
      await deployRevision(SLUG, "rev0000001", { "/a.txt": "one" });
      await deployRevision("brisk-heron-d3e4f", "rev0000009", { "/a.txt": "theirs" });
      await expect(h.platform.promoteRevision(SLUG, "rev0000009")).rejects.toBeInstanceOf(
        RevisionNotFoundError,
      );
      await expect(h.platform.promoteRevision(SLUG, "zzzzzzzzzz")).rejects.toBeInstanceOf(
        RevisionNotFoundError,
      );
      expect(await production("/a.txt")).toEqual({ status: 200, body: "one" });
    });

    it("pruneRevisions: a pruned revision's host answers 404 at once; the production revision is never pruned", async () => {
      await deployRevision(SLUG, "rev0000001", { "/a.txt": "one" });
      await deployRevision(SLUG, "rev0000002", { "/a.txt": "two" });
      await h.platform.pruneRevisions(SLUG, ["rev0000001", "rev0000002"]);
      expect((await revisionHost("rev0000001", "/a.txt")).status).toBe(404);
      expect(await revisionHost("rev0000002", "/a.txt")).toEqual({ status: 200, body: "two" });
      expect(await production("/a.txt")).toEqual({ status: 200, body: "two" });
      await expect(h.platform.promoteRevision(SLUG, "rev0000001")).rejects.toBeInstanceOf(
        RevisionNotFoundError,
      );
      // Idempotent.
      await h.platform.pruneRevisions(SLUG, ["rev0000001"]);
    });

    it.runIf(traits.reclaimsContent)(
      "sweep: content only a pruned revision held is reclaimed; content another revision holds is kept",
      async () => {
        await deployRevision(SLUG, "rev0000001", { "/old.txt": "only old", "/shared.txt": "shared" });
        await deployRevision(SLUG, "rev0000002", { "/shared.txt": "shared" });
        h.clock.now += 2 * HOUR;
        await h.platform.sweep(new Date(h.clock.now));
        await h.platform.pruneRevisions(SLUG, ["rev0000001"]);
        const result = await h.platform.sweep(new Date(h.clock.now));
        expect(result.blobsDeleted).toBe(1);
        expect(result.bytesFreed).toBe("only old".length);
        expect(await production("/shared.txt")).toEqual({ status: 200, body: "shared" });
        // The project no longer has it: a deploy that wants it again is asked for it.
        const { entries } = await siteOf({ "/old.txt": "only old" });
        const again = await h.platform.openUploadSession({
          projectSlug: SLUG,
          entries,
          expiresAt: expiresIn(HOUR),
        });
        expect(again.buckets.flat()).toEqual([entries[0]!.hash]);
      },
    );

    it("openUploadSession: asks for each missing hash once, in buckets, with an account and an upload URL", async () => {
      const { entries } = await siteOf({ "/a.txt": "same", "/b.txt": "other", "/c/a.txt": "same" });
      const session = await h.platform.openUploadSession({
        projectSlug: "amber-otter-a1b2c",
        entries,
        expiresAt: expiresIn(HOUR),
      });
      const asked = session.buckets.flat();
      expect(asked.sort()).toEqual([...new Set(entries.map((e) => e.hash))].sort());
      expect(session.accountId).not.toBe("");
      expect(new URL(session.uploadUrl).protocol).toMatch(/^https?:$/);
      expect(session.uploadJwt).not.toBe("");
    });

    it("publishRevision: after the upload, the site serves the revision's files on its hostname", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, { "/index.html": "<h1>hi</h1>", "/x.txt": "x" });
      await publish(slug, "rev0000001", session, completion);
      expect(await h.fetchSite(`${slug}.sites.test`, "/x.txt")).toEqual({ status: 200, body: "x" });
      expect((await h.fetchSite(`${slug}.sites.test`, "/")).body).toBe("<h1>hi</h1>");
    });

    it("publishRevision: the same publish again succeeds and changes nothing (idempotent)", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, { "/x.txt": "once" });
      await publish(slug, "rev0000001", session, completion);
      await publish(slug, "rev0000001", session, completion);
      expect(await h.fetchSite(`${slug}.sites.test`, "/x.txt")).toEqual({ status: 200, body: "once" });
    });

    it("publishRevision: a _redirects or _headers that does not parse is refused with InvalidSiteConfigError naming file and line; nothing is published", async () => {
      const slug = "amber-otter-a1b2c";
      const cases: { files: Record<string, string>; message: string }[] = [
        {
          files: { "/_redirects": "/a /b\n/c\n" },
          message: '_redirects:2: expected "from to [status]", got 1 field',
        },
        {
          files: { "/_headers": "/*\n  Bad Header: x\n" },
          message: '_headers:2: "Bad Header" is not a header name',
        },
      ];
      for (const { files, message } of cases) {
        const { session, completion } = await uploadAll(slug, { "/index.html": "new", ...files });
        const refused = publish(slug, "rev0000001", session, completion);
        await expect(refused).rejects.toBeInstanceOf(InvalidSiteConfigError);
        await expect(refused).rejects.toThrow(message);
        expect((await h.fetchSite(`${slug}.sites.test`, "/")).status).toBe(404);
      }
    });

    it("publishRevision: the revision's _redirects apply on its edge, and neither rules file is served", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, {
        "/index.html": "home",
        "/new.html": "new page",
        "/_redirects": "/old /new 200\n",
        "/_headers": "/*\n  X-Frame-Options: DENY\n",
      });
      await publish(slug, "rev0000001", session, completion);
      expect(await h.fetchSite(`${slug}.sites.test`, "/old")).toEqual({ status: 200, body: "new page" });
      expect((await h.fetchSite(`${slug}.sites.test`, "/_redirects")).status).toBe(404);
      expect((await h.fetchSite(`${slug}.sites.test`, "/_headers")).status).toBe(404);
    });

    it.runIf(traits.contentPerProject)(
      "openUploadSession: content only another project holds is asked for; the project that has it is not asked again",
      async () => {
        const first = await uploadAll("amber-otter-a1b2c", { "/x.txt": "shared bytes" });
        await publish("amber-otter-a1b2c", "rev0000001", first.session, first.completion);
        const { entries } = await siteOf({ "/x.txt": "shared bytes" });
        // Another project must send the bytes itself (contract §3): until then it cannot publish.
        const other = await h.platform.openUploadSession({
          projectSlug: "brisk-heron-d3e4f",
          entries,
          expiresAt: expiresIn(HOUR),
        });
        expect(other.buckets).toEqual([[entries[0]!.hash]]);
        await expect(
          publish("brisk-heron-d3e4f", "rev0000002", other, other.uploadJwt),
        ).rejects.toBeInstanceOf(InvalidCompletionError);
        // The project whose revision holds it is not asked again, and its upload token completes.
        const again = await h.platform.openUploadSession({
          projectSlug: "amber-otter-a1b2c",
          entries,
          expiresAt: expiresIn(HOUR),
        });
        expect(again.buckets).toEqual([]);
        await publish("amber-otter-a1b2c", "rev0000002", again, again.uploadJwt);
        expect(await h.fetchSite("amber-otter-a1b2c.sites.test", "/x.txt")).toEqual({
          status: 200,
          body: "shared bytes",
        });
      },
    );

    it("openUploadSession: content uploaded in an open session of the same project is not asked for again", async () => {
      const uploaded = await uploadAll("amber-otter-a1b2c", { "/draft.txt": "draft bytes" });
      expect(uploaded.session.buckets.flat()).toHaveLength(1);
      const { entries } = await siteOf({ "/draft.txt": "draft bytes" });
      const again = await h.platform.openUploadSession({
        projectSlug: "amber-otter-a1b2c",
        entries,
        expiresAt: expiresIn(HOUR),
      });
      expect(again.buckets).toEqual([]);
      await publish("amber-otter-a1b2c", "rev0000001", again, again.uploadJwt);
      expect(await h.fetchSite("amber-otter-a1b2c.sites.test", "/draft.txt")).toEqual({
        status: 200,
        body: "draft bytes",
      });
    });

    it("publishRevision: refuses a forged token, another session's token and missing content with InvalidCompletionError", async () => {
      const slug = "amber-otter-a1b2c";
      const done = await uploadAll(slug, { "/a.txt": "a" });
      const { entries } = await siteOf({ "/b.txt": "never uploaded" });
      const pending = await h.platform.openUploadSession({
        projectSlug: slug,
        entries,
        expiresAt: expiresIn(HOUR),
      });
      // Each attempt starts only when the one before was refused: a rejection nobody awaits yet
      // would surface as an unhandled rejection.
      const attempts = [
        () => publish(slug, "rev0000001", done.session, `${done.completion.slice(0, -4)}AAAA`),
        () => publish(slug, "rev0000001", pending, done.completion),
        // An upload token is not a completion token while content is missing.
        () => publish(slug, "rev0000001", pending, pending.uploadJwt),
      ];
      for (const attempt of attempts) await expect(attempt()).rejects.toBeInstanceOf(InvalidCompletionError);
      expect((await h.fetchSite(`${slug}.sites.test`, "/a.txt")).status).toBe(404);
    });

    it("publishRevision: a completion token past its session's expiry is refused", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, { "/a.txt": "a" });
      h.clock.now += 2 * HOUR;
      await expect(publish(slug, "rev0000001", session, completion)).rejects.toBeInstanceOf(
        InvalidCompletionError,
      );
    });

    it("updateSite: the site answers on the new hostnames only", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, { "/a.txt": "a" });
      await publish(slug, "rev0000001", session, completion);
      await h.platform.updateSite(slug, { hostnames: ["www.example.com"], expiresAt: expiresIn(24 * HOUR) });
      expect(await h.fetchSite("www.example.com", "/a.txt")).toEqual({ status: 200, body: "a" });
      expect((await h.fetchSite(`${slug}.sites.test`, "/a.txt")).status).toBe(404);
    });

    it("updateSite: every hostname answers; those other than the canonical one name it in a Link header", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, { "/a.txt": "a" });
      await publish(slug, "rev0000001", session, completion);
      await h.platform.updateSite(slug, {
        hostnames: [`${slug}.sites.test`, "www.example.com"],
        canonical: { hostname: "www.example.com", url: "https://www.example.com/" },
        expiresAt: expiresIn(24 * HOUR),
      });
      expect(await h.fetchSite("www.example.com", "/a.txt")).toEqual({ status: 200, body: "a" });
      expect(await h.fetchSite(`${slug}.sites.test`, "/a.txt")).toEqual({
        status: 200,
        body: "a",
        link: '<https://www.example.com/a.txt>; rel="canonical"',
      });
      await h.platform.updateSite(slug, {
        hostnames: [`${slug}.sites.test`],
        expiresAt: expiresIn(24 * HOUR),
      });
      expect(await h.fetchSite(`${slug}.sites.test`, "/a.txt")).toEqual({ status: 200, body: "a" });
    });

    it("unpublishProject: the site stops answering at once", async () => {
      const slug = "amber-otter-a1b2c";
      const { session, completion } = await uploadAll(slug, { "/a.txt": "a" });
      await publish(slug, "rev0000001", session, completion);
      await h.platform.unpublishProject(slug);
      expect((await h.fetchSite(`${slug}.sites.test`, "/a.txt")).status).toBe(404);
    });

    it.runIf(traits.reclaimsContent)(
      "sweep: content of an abandoned session is reclaimed, a published revision's is kept",
      async () => {
        const kept = await uploadAll("amber-otter-a1b2c", { "/kept.txt": "kept" });
        await publish("amber-otter-a1b2c", "rev0000001", kept.session, kept.completion);
        const abandoned = await uploadAll("brisk-heron-d3e4f", { "/gone.txt": "abandoned" });
        h.clock.now += 2 * HOUR;
        const result = await h.platform.sweep(new Date(h.clock.now));
        expect(result.blobsDeleted).toBe(1);
        expect(result.bytesFreed).toBe("abandoned".length);
        const again = await h.platform.openUploadSession({
          projectSlug: "brisk-heron-d3e4f",
          entries: abandoned.entries,
          expiresAt: expiresIn(HOUR),
        });
        expect(again.buckets.flat()).toEqual([abandoned.entries[0]!.hash]);
        expect(await h.fetchSite("amber-otter-a1b2c.sites.test", "/kept.txt")).toEqual({
          status: 200,
          body: "kept",
        });
      },
    );

    it("check: answers while open", async () => {
      await expect(h.platform.check()).resolves.toBeUndefined();
    });
  });
}
