import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type DeployRecord,
  HostnameConflictError,
  type HostnameRelease,
  HostnameWithheldError,
  type ProjectRecord,
  type Store,
} from "../../src/core/ports/index.js";

const sha = (label: string) => createHash("sha256").update(label).digest("hex");
const at = (iso: string) => new Date(iso).toISOString();

/** A project record named after `label`, with its own token hash and generated hostname. */
function projectRecord(label: string, overrides: Partial<ProjectRecord> = {}): ProjectRecord {
  const slug = `${label}-otter-a1b2c`;
  return {
    slug,
    projectHash: sha(`${label}-hash`),
    anonFingerprint: sha(`${label}-fp`),
    tokenHash: sha(`${label}-token`),
    generatedHostname: `${slug}.localhost`,
    customHostname: null,
    domain: null,
    revisionId: null,
    createdAt: at("2030-01-01T00:00:00Z"),
    expiresAt: at("2030-01-31T00:00:00Z"),
    ...overrides,
  };
}

/** An uncompleted deploy of `projectSlug`. */
function deployRecord(projectSlug: string, n: number, overrides: Partial<DeployRecord> = {}): DeployRecord {
  return {
    deployId: `deploy-${projectSlug}-${n}-${"x".repeat(22)}`,
    projectSlug,
    revisionId: `rev${String(n).padStart(7, "0")}`,
    sessionId: `session-${projectSlug}-${n}`,
    createdAt: at("2030-01-02T00:00:00Z"),
    expiresAt: at("2030-01-02T01:00:00Z"),
    completedAt: null,
    completionHash: null,
    fileCount: n,
    byteCount: 100 * n,
    manifestDigest: sha(`manifest-${projectSlug}-${n}`),
    ...overrides,
  };
}

/**
 * The behaviour every `Store` implementation must have. `open` gives a fresh, empty, migrated store
 * each time it is called; each test opens one and closes it.
 */
export function storeContract(name: string, open: () => Promise<Store>): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it("createProject: stores the record, found by slug, token hash and generated hostname", async () => {
      const record = projectRecord("amber");
      expect(await store.createProject(record)).toBe(true);
      expect(await store.getProject(record.slug)).toEqual(record);
      expect(await store.getProjectByTokenHash(record.tokenHash)).toEqual(record);
      expect(await store.getProjectByHostname(record.generatedHostname)).toEqual(record);
    });

    it("createProject: keeps the client address that created it (createdBy), read back with the record", async () => {
      const record = projectRecord("amber", { createdBy: "203.0.113.7" });
      expect(await store.createProject(record)).toBe(true);
      expect(await store.getProject(record.slug)).toEqual(record);
      expect((await store.getProjectByTokenHash(record.tokenHash))?.createdBy).toBe("203.0.113.7");
    });

    it("getProject: unknown slug, token hash or hostname gives undefined", async () => {
      await store.createProject(projectRecord("amber"));
      expect(await store.getProject("nobody-here-00000")).toBeUndefined();
      expect(await store.getProjectByTokenHash(sha("unknown-token"))).toBeUndefined();
      expect(await store.getProjectByHostname("nobody-here-00000.localhost")).toBeUndefined();
    });

    it("createProject: false on a duplicate slug, and the first project is unchanged", async () => {
      const first = projectRecord("amber");
      await store.createProject(first);
      const clash = projectRecord("other", { slug: first.slug, generatedHostname: "other.localhost" });
      expect(await store.createProject(clash)).toBe(false);
      expect(await store.getProject(first.slug)).toEqual(first);
      expect(await store.getProjectByTokenHash(clash.tokenHash)).toBeUndefined();
    });

    it("createProject: false when its generated hostname is another project's custom hostname, nothing stored", async () => {
      const holder = projectRecord("amber");
      await store.createProject(holder);
      await store.setCustomHostname(holder.slug, "birch-otter-a1b2c.localhost");
      const clash = projectRecord("birch");
      expect(clash.generatedHostname).toBe("birch-otter-a1b2c.localhost");
      expect(await store.createProject(clash)).toBe(false);
      expect(await store.getProject(clash.slug)).toBeUndefined();
      expect((await store.getProjectByHostname(clash.generatedHostname))?.slug).toBe(holder.slug);
    });

    it("setCustomHostname: sets, finds by it, and clears back to the generated hostname", async () => {
      const record = projectRecord("amber");
      await store.createProject(record);
      await store.setCustomHostname(record.slug, "www.example.com");
      expect((await store.getProject(record.slug))?.customHostname).toBe("www.example.com");
      expect((await store.getProjectByHostname("www.example.com"))?.slug).toBe(record.slug);
      expect((await store.getProjectByHostname(record.generatedHostname))?.slug).toBe(record.slug);
      await store.setCustomHostname(record.slug, "www.example.com"); // again: no conflict with itself
      await store.setCustomHostname(record.slug, null);
      expect((await store.getProject(record.slug))?.customHostname).toBeNull();
      expect(await store.getProjectByHostname("www.example.com")).toBeUndefined();
    });

    it("setCustomHostname: HostnameConflictError when another project holds it, changing nothing", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      await store.setCustomHostname(a.slug, "shop.example.com");
      await store.setCustomHostname(b.slug, "blog.example.com");
      const refused = store.setCustomHostname(b.slug, "shop.example.com");
      await expect(refused).rejects.toBeInstanceOf(HostnameConflictError);
      await expect(refused).rejects.toMatchObject({ hostname: "shop.example.com" });
      expect((await store.getProject(b.slug))?.customHostname).toBe("blog.example.com");
      expect((await store.getProjectByHostname("shop.example.com"))?.slug).toBe(a.slug);
      // Once freed, it can be taken.
      await store.setCustomHostname(a.slug, null);
      await store.setCustomHostname(b.slug, "shop.example.com");
      expect((await store.getProjectByHostname("shop.example.com"))?.slug).toBe(b.slug);
    });

    it("setCustomHostname: HostnameConflictError for another project's generated hostname", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      await expect(store.setCustomHostname(b.slug, a.generatedHostname)).rejects.toBeInstanceOf(
        HostnameConflictError,
      );
      expect((await store.getProject(b.slug))?.customHostname).toBeNull();
      // Its own generated hostname is no conflict.
      await store.setCustomHostname(b.slug, b.generatedHostname);
    });

    it("createDeploy: stores the record, found only under its own project", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      const deploy = deployRecord(a.slug, 1);
      await store.createDeploy(deploy);
      expect(await store.getDeploy(a.slug, deploy.deployId)).toEqual(deploy);
      expect(await store.getDeploy(b.slug, deploy.deployId)).toBeUndefined();
      expect(await store.getDeploy(a.slug, "no-such-deploy")).toBeUndefined();
    });

    it("completeDeploy: marks the deploy and moves the project's revision and expiry together", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const deploy = deployRecord(a.slug, 1);
      await store.createDeploy(deploy);
      const input = {
        projectSlug: a.slug,
        deployId: deploy.deployId,
        completionHash: sha("completion-1"),
        completedAt: at("2030-01-02T00:10:00Z"),
        projectExpiresAt: at("2030-02-01T00:10:00Z"),
      };
      const published = await store.completeDeploy(input);
      const expected = { ...a, revisionId: deploy.revisionId, expiresAt: input.projectExpiresAt };
      expect(published).toEqual(expected);
      expect(await store.getProject(a.slug)).toEqual(expected);
      expect(await store.getDeploy(a.slug, deploy.deployId)).toEqual({
        ...deploy,
        completedAt: input.completedAt,
        completionHash: input.completionHash,
      });

      // A later deploy moves the revision on.
      const next = deployRecord(a.slug, 2);
      await store.createDeploy(next);
      const moved = await store.completeDeploy({
        ...input,
        deployId: next.deployId,
        completionHash: sha("completion-2"),
        projectExpiresAt: at("2030-02-02T00:00:00Z"),
      });
      expect(moved.revisionId).toBe(next.revisionId);
      expect(moved.expiresAt).toBe(at("2030-02-02T00:00:00Z"));
    });

    it("completeDeploy: the revision keeps its deploy's manifest digest (null for one recorded without)", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const withDigest = deployRecord(a.slug, 1);
      const without = deployRecord(a.slug, 2, { manifestDigest: null });
      for (const deploy of [withDigest, without]) {
        await store.createDeploy(deploy);
        await store.completeDeploy({
          projectSlug: a.slug,
          deployId: deploy.deployId,
          completionHash: sha(`completion-${deploy.deployId}`),
          completedAt: at(`2030-01-02T00:1${deploy.fileCount}:00Z`),
          projectExpiresAt: at("2030-02-01T00:10:00Z"),
        });
      }
      const revisions = await store.listRevisions(a.slug);
      expect(revisions.map((r) => [r.revisionId, r.manifestDigest])).toEqual([
        [without.revisionId, null],
        [withDigest.revisionId, withDigest.manifestDigest],
      ]);
      expect((await store.getDeploy(a.slug, withDigest.deployId))?.manifestDigest).toBe(
        withDigest.manifestDigest,
      );
    });

    it("renewProject: moves only the project's expiry; undefined for a project that does not exist", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("beryl");
      await store.createProject(a);
      await store.createProject(b);
      const renewed = await store.renewProject(a.slug, at("2030-03-01T00:00:00Z"));
      expect(renewed).toEqual({ ...a, expiresAt: at("2030-03-01T00:00:00Z") });
      expect(await store.getProject(a.slug)).toEqual(renewed);
      expect(await store.getProject(b.slug)).toEqual(b);
      expect(await store.renewProject("no-such-project", at("2030-03-01T00:00:00Z"))).toBeUndefined();
    });

    it("completeDeploy: a preview records its revision, counts and message, moves the expiry and leaves production", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const first = deployRecord(a.slug, 1);
      const preview = deployRecord(a.slug, 2);
      const completion = (deploy: DeployRecord, minute: number) => ({
        projectSlug: a.slug,
        deployId: deploy.deployId,
        completionHash: sha(`completion-${deploy.deployId}`),
        completedAt: at(`2030-01-02T00:${minute}:00Z`),
        projectExpiresAt: at(`2030-02-01T00:${minute}:00Z`),
      });
      for (const deploy of [first, preview]) await store.createDeploy(deploy);
      await store.completeDeploy(completion(first, 10));
      const previewed = await store.completeDeploy({
        ...completion(preview, 20),
        preview: true,
        message: "try it",
      });
      const expected = { ...a, revisionId: first.revisionId, expiresAt: at("2030-02-01T00:20:00Z") };
      expect(previewed).toEqual(expected);
      expect(await store.getProject(a.slug)).toEqual(expected);
      expect((await store.listRevisions(a.slug))[0]).toEqual({
        revisionId: preview.revisionId,
        deployId: preview.deployId,
        createdAt: at("2030-01-02T00:20:00Z"),
        fileCount: 2,
        byteCount: 200,
        preview: true,
        manifestDigest: preview.manifestDigest,
        message: "try it",
      });
    });

    it("completeDeploy: a second completion of the same deploy throws and changes nothing", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const deploy = deployRecord(a.slug, 1);
      await store.createDeploy(deploy);
      await store.completeDeploy({
        projectSlug: a.slug,
        deployId: deploy.deployId,
        completionHash: sha("completion-1"),
        completedAt: at("2030-01-02T00:10:00Z"),
        projectExpiresAt: at("2030-02-01T00:10:00Z"),
      });
      const projectBefore = await store.getProject(a.slug);
      const deployBefore = await store.getDeploy(a.slug, deploy.deployId);

      await expect(
        store.completeDeploy({
          projectSlug: a.slug,
          deployId: deploy.deployId,
          completionHash: sha("completion-other"),
          completedAt: at("2030-01-02T00:20:00Z"),
          projectExpiresAt: at("2030-03-01T00:00:00Z"),
        }),
      ).rejects.toThrow();
      expect(await store.getProject(a.slug)).toEqual(projectBefore);
      expect(await store.getDeploy(a.slug, deploy.deployId)).toEqual(deployBefore);
    });

    it("completeDeploy: an unknown deploy, or one of another project, throws and changes nothing", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      const deploy = deployRecord(a.slug, 1);
      await store.createDeploy(deploy);
      const input = {
        completionHash: sha("completion"),
        completedAt: at("2030-01-02T00:10:00Z"),
        projectExpiresAt: at("2030-02-01T00:10:00Z"),
      };
      await expect(
        store.completeDeploy({ ...input, projectSlug: b.slug, deployId: deploy.deployId }),
      ).rejects.toThrow();
      await expect(
        store.completeDeploy({ ...input, projectSlug: a.slug, deployId: "nope" }),
      ).rejects.toThrow();
      expect(await store.getProject(a.slug)).toEqual(a);
      expect(await store.getProject(b.slug)).toEqual(b);
      expect(await store.getDeploy(a.slug, deploy.deployId)).toEqual(deploy);
    });

    it("deleteProject: removes the project with its deploys and frees its hostnames", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      await store.setCustomHostname(a.slug, "shop.example.com");
      const done = deployRecord(a.slug, 1);
      const open = deployRecord(a.slug, 2);
      const others = deployRecord(b.slug, 1);
      for (const d of [done, open, others]) await store.createDeploy(d);
      await store.completeDeploy({
        projectSlug: a.slug,
        deployId: done.deployId,
        completionHash: sha("completion"),
        completedAt: at("2030-01-02T00:10:00Z"),
        projectExpiresAt: at("2030-02-01T00:10:00Z"),
      });

      expect(await store.deleteProject(a.slug)).toBe(true);
      expect(await store.getProject(a.slug)).toBeUndefined();
      expect(await store.getProjectByTokenHash(a.tokenHash)).toBeUndefined();
      expect(await store.getProjectByHostname(a.generatedHostname)).toBeUndefined();
      expect(await store.getProjectByHostname("shop.example.com")).toBeUndefined();
      expect(await store.getDeploy(a.slug, done.deployId)).toBeUndefined();
      expect(await store.getDeploy(a.slug, open.deployId)).toBeUndefined();
      expect(await store.getDeploy(b.slug, others.deployId)).toEqual(others);
      expect(await store.deleteProject(a.slug)).toBe(false);

      await store.setCustomHostname(b.slug, "shop.example.com");
      expect((await store.getProjectByHostname("shop.example.com"))?.slug).toBe(b.slug);

      // Nothing of the old project lingers: the slug and the same revision can be used again.
      expect(await store.createProject(a)).toBe(true);
      await store.createDeploy(done);
      const again = await store.completeDeploy({
        projectSlug: a.slug,
        deployId: done.deployId,
        completionHash: sha("completion"),
        completedAt: at("2030-01-03T00:00:00Z"),
        projectExpiresAt: at("2030-02-03T00:00:00Z"),
      });
      expect(again.revisionId).toBe(done.revisionId);
    });

    it("deleteExpiredDeploys: deletes uncompleted deploys that expired before now, and only those", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const expired = deployRecord(a.slug, 1, { expiresAt: at("2030-01-02T01:00:00Z") });
      const completed = deployRecord(a.slug, 2, { expiresAt: at("2030-01-02T01:00:00Z") });
      const live = deployRecord(a.slug, 3, { expiresAt: at("2030-01-02T03:00:00Z") });
      for (const d of [expired, completed, live]) await store.createDeploy(d);
      await store.completeDeploy({
        projectSlug: a.slug,
        deployId: completed.deployId,
        completionHash: sha("completion"),
        completedAt: at("2030-01-02T00:30:00Z"),
        projectExpiresAt: at("2030-02-01T00:30:00Z"),
      });

      expect(await store.deleteExpiredDeploys(at("2030-01-02T02:00:00Z"))).toBe(1);
      expect(await store.getDeploy(a.slug, expired.deployId)).toBeUndefined();
      expect((await store.getDeploy(a.slug, completed.deployId))?.completedAt).not.toBeNull();
      expect(await store.getDeploy(a.slug, live.deployId)).toEqual(live);
      expect(await store.deleteExpiredDeploys(at("2030-01-02T02:00:00Z"))).toBe(0);
      expect((await store.getProject(a.slug))?.revisionId).toBe(completed.revisionId);
    });

    it("listProjectsExpiredBefore: slugs of projects expired before the time, soonest first, up to the limit", async () => {
      const early = projectRecord("early", { expiresAt: at("2030-01-10T00:00:00Z") });
      const middle = projectRecord("middle", { expiresAt: at("2030-01-05T00:00:00Z") });
      const late = projectRecord("late", { expiresAt: at("2030-01-20T00:00:00Z") });
      for (const p of [early, middle, late]) await store.createProject(p);

      expect(await store.listProjectsExpiredBefore(at("2030-01-15T00:00:00Z"), 10)).toEqual([
        middle.slug,
        early.slug,
      ]);
      expect(await store.listProjectsExpiredBefore(at("2030-01-15T00:00:00Z"), 1)).toEqual([middle.slug]);
      expect(await store.listProjectsExpiredBefore(at("2030-01-01T00:00:00Z"), 10)).toEqual([]);
      expect(await store.listProjectsExpiredBefore(at("2030-12-31T00:00:00Z"), 10)).toHaveLength(3);
    });

    const release = (
      hostname: string,
      projectSlug: string,
      withheldUntil: string | null,
    ): HostnameRelease => ({
      hostname,
      projectSlug,
      releasedAt: at("2030-01-05T00:00:00Z"),
      withheldUntil,
    });

    it("deleteProject: records the released hostnames with the deletion; getHostnameRelease finds them", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      await store.setCustomHostname(a.slug, "shop.example.com");
      const releases = [
        release(a.generatedHostname, a.slug, null),
        release("shop.example.com", a.slug, at("2030-02-04T00:00:00Z")),
      ];
      expect(await store.getHostnameRelease("shop.example.com")).toBeUndefined();
      expect(await store.deleteProject(a.slug, releases)).toBe(true);
      expect(await store.getHostnameRelease(a.generatedHostname)).toEqual(releases[0]);
      expect(await store.getHostnameRelease("shop.example.com")).toEqual(releases[1]);
      // Deleting nothing records nothing.
      expect(await store.deleteProject("nobody-here-00000", [release("x.example.com", "nobody", null)])).toBe(
        false,
      );
      expect(await store.getHostnameRelease("x.example.com")).toBeUndefined();
    });

    it("createProject: false for a generated hostname that was released, even under the same slug", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      await store.deleteProject(a.slug, [release(a.generatedHostname, a.slug, null)]);
      const again = projectRecord("amber", { tokenHash: sha("amber-token-2") });
      expect(await store.createProject(again)).toBe(false);
      expect(await store.getProject(a.slug)).toBeUndefined();
      expect(await store.getProjectByTokenHash(again.tokenHash)).toBeUndefined();
    });

    it("setCustomHostname: keeps the domain's proof with it; recordDomainCheck updates it only while the name is the same", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const pending = {
        status: "pending" as const,
        claimedAt: at("2030-01-02T00:00:00Z"),
        checkedAt: null,
        message: null,
      };
      await store.setCustomHostname(a.slug, "shop.example.com", { domain: pending });
      expect((await store.getProject(a.slug))?.domain).toEqual(pending);
      const check = {
        status: "active" as const,
        checkedAt: at("2030-01-03T00:00:00Z"),
        message: "DNS shows it",
      };
      expect(await store.recordDomainCheck(a.slug, "other.example.com", check)).toBe(false);
      expect((await store.getProject(a.slug))?.domain).toEqual(pending);
      expect(await store.recordDomainCheck(a.slug, "shop.example.com", check)).toBe(true);
      expect((await store.getProject(a.slug))?.domain).toEqual({ ...pending, ...check });
      await store.setCustomHostname(a.slug, null);
      expect((await store.getProject(a.slug))?.domain).toBeNull();
    });

    it("markDomainContested: marks a pending claim once (the first time kept), never an active one or another name; a new claim starts uncontested", async () => {
      const [a, b] = [projectRecord("amber"), projectRecord("birch")];
      for (const p of [a, b]) await store.createProject(p);
      const claimedAt = at("2030-01-02T00:00:00Z");
      const pending = { status: "pending" as const, claimedAt, checkedAt: null, message: null };
      await store.setCustomHostname(a.slug, "shop.example.com", { domain: pending });
      await store.setCustomHostname(b.slug, "b.example.com", { domain: { ...pending, status: "active" } });
      expect(await store.markDomainContested(a.slug, "other.example.com", at("2030-01-03T00:00:00Z"))).toBe(
        false,
      );
      expect((await store.getProject(a.slug))?.domain).toEqual(pending);
      expect(await store.markDomainContested(a.slug, "shop.example.com", at("2030-01-03T00:00:00Z"))).toBe(
        true,
      );
      expect(await store.markDomainContested(a.slug, "shop.example.com", at("2030-01-04T00:00:00Z"))).toBe(
        true,
      );
      expect((await store.getProject(a.slug))?.domain).toEqual({
        ...pending,
        contestedAt: at("2030-01-03T00:00:00Z"),
      });
      // A DNS check keeps the mark; listPendingDomains carries it.
      const check = { status: "pending" as const, checkedAt: at("2030-01-05T00:00:00Z"), message: "not yet" };
      await store.recordDomainCheck(a.slug, "shop.example.com", check);
      const [due] = await store.listPendingDomains(at("2030-01-06T00:00:00Z"), 10);
      expect(due?.domain).toEqual({ ...pending, ...check, contestedAt: at("2030-01-03T00:00:00Z") });
      expect(await store.markDomainContested(b.slug, "b.example.com", at("2030-01-03T00:00:00Z"))).toBe(
        false,
      );
      expect((await store.getProject(b.slug))?.domain?.contestedAt).toBeUndefined();
      await store.setCustomHostname(a.slug, "shop.example.com", { domain: pending });
      expect((await store.getProject(a.slug))?.domain).toEqual(pending);
    });

    it("listPendingDomains: pending names not checked since the time given, least recently checked first", async () => {
      const [a, b, c] = [projectRecord("amber"), projectRecord("birch"), projectRecord("cedar")];
      for (const p of [a, b, c]) await store.createProject(p);
      const claimedAt = at("2030-01-02T00:00:00Z");
      await store.setCustomHostname(a.slug, "a.example.com", {
        domain: { status: "pending", claimedAt, checkedAt: at("2030-01-02T10:00:00Z"), message: null },
      });
      await store.setCustomHostname(b.slug, "b.example.com", {
        domain: { status: "pending", claimedAt, checkedAt: null, message: null },
      });
      await store.setCustomHostname(c.slug, "c.example.com", {
        domain: { status: "active", claimedAt, checkedAt: null, message: null },
      });
      const due = await store.listPendingDomains(at("2030-01-02T11:00:00Z"), 10);
      expect(due.map((p) => p.slug)).toEqual([b.slug, a.slug]);
      expect((await store.listPendingDomains(at("2030-01-02T09:00:00Z"), 10)).map((p) => p.slug)).toEqual([
        b.slug,
      ]);
      expect(await store.listPendingDomains(at("2030-01-02T11:00:00Z"), 1)).toHaveLength(1);
    });

    it("setCustomHostname: takeOver drops another project's claim and a quarantine, never a tombstone", async () => {
      const [a, b, c] = [projectRecord("amber"), projectRecord("birch"), projectRecord("cedar")];
      for (const p of [a, b, c]) await store.createProject(p);
      await store.setCustomHostname(a.slug, "shop.example.com");
      expect(await store.setCustomHostname(b.slug, "shop.example.com", { takeOver: true })).toEqual({
        takenFrom: a.slug,
      });
      expect((await store.getProject(a.slug))?.customHostname).toBeNull();
      expect((await store.getProject(a.slug))?.domain).toBeNull();
      expect((await store.getProjectByHostname("shop.example.com"))?.slug).toBe(b.slug);
      // A quarantine yields to it; a tombstone does not.
      const now = at("2030-01-05T00:00:00Z");
      await store.setCustomHostname(b.slug, null, {
        now,
        release: release("shop.example.com", b.slug, at("2030-02-04T00:00:00Z")),
      });
      // Nobody held it: no takenFrom at all.
      expect(
        await store.setCustomHostname(c.slug, "shop.example.com", { now, takeOver: true }),
      ).toStrictEqual({});
      expect(await store.getHostnameRelease("shop.example.com")).toBeUndefined();
      await store.setCustomHostname(a.slug, "a-vanity.localhost");
      await store.setCustomHostname(a.slug, null, { release: release("a-vanity.localhost", a.slug, null) });
      await expect(
        store.setCustomHostname(c.slug, "a-vanity.localhost", { takeOver: true }),
      ).rejects.toBeInstanceOf(HostnameWithheldError);
    });

    it("hasRevision: true only for a revision the project recorded", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      expect(await store.hasRevision(a.slug, "rev0000001")).toBe(false);
      const deploy = deployRecord(a.slug, 1);
      await store.createDeploy(deploy);
      await store.completeDeploy({
        projectSlug: a.slug,
        deployId: deploy.deployId,
        completionHash: sha("completion-1"),
        completedAt: at("2030-01-02T00:10:00Z"),
        projectExpiresAt: at("2030-02-01T00:10:00Z"),
      });
      expect(await store.hasRevision(a.slug, "rev0000001")).toBe(true);
      expect(await store.hasRevision(a.slug, "rev0000002")).toBe(false);
      expect(await store.hasRevision("other-otter-a1b2c", "rev0000001")).toBe(false);
    });

    it("setCustomHostname: HostnameWithheldError for a name another project released, until its quarantine ends", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      await store.setCustomHostname(a.slug, "shop.example.com");
      const quarantine = release("shop.example.com", a.slug, at("2030-02-04T00:00:00Z"));
      // Giving the name up records its release in the same change.
      await store.setCustomHostname(a.slug, null, { now: at("2030-01-05T00:00:00Z"), release: quarantine });
      expect(await store.getHostnameRelease("shop.example.com")).toEqual(quarantine);

      const refused = store.setCustomHostname(b.slug, "shop.example.com", {
        now: at("2030-02-03T23:59:00Z"),
      });
      await expect(refused).rejects.toBeInstanceOf(HostnameWithheldError);
      await expect(refused).rejects.toMatchObject({ release: quarantine });
      expect((await store.getProject(b.slug))?.customHostname).toBeNull();
      // A tombstone is withheld for ever.
      await store.setCustomHostname(a.slug, "a-vanity.localhost");
      await store.setCustomHostname(a.slug, null, { release: release("a-vanity.localhost", a.slug, null) });
      await expect(
        store.setCustomHostname(b.slug, "a-vanity.localhost", { now: at("2099-01-01T00:00:00Z") }),
      ).rejects.toBeInstanceOf(HostnameWithheldError);

      // Once the quarantine is over another project may take it.
      await store.setCustomHostname(b.slug, "shop.example.com", { now: at("2030-02-04T00:00:01Z") });
      expect((await store.getProjectByHostname("shop.example.com"))?.slug).toBe(b.slug);
    });

    it("setCustomHostname: the releasing project takes its name back, which forgets the release", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      await store.setCustomHostname(a.slug, "a-vanity.localhost");
      await store.setCustomHostname(a.slug, null, { release: release("a-vanity.localhost", a.slug, null) });
      await store.setCustomHostname(a.slug, "a-vanity.localhost");
      expect((await store.getProject(a.slug))?.customHostname).toBe("a-vanity.localhost");
      expect(await store.getHostnameRelease("a-vanity.localhost")).toBeUndefined();
    });

    /** Creates and completes deploy `n` of `slug` at `completedAt`; returns its revision id. */
    async function completeAt(
      slug: string,
      n: number,
      completedAt: string,
      preview = false,
    ): Promise<string> {
      const deploy = deployRecord(slug, n);
      await store.createDeploy(deploy);
      await store.completeDeploy({
        projectSlug: slug,
        deployId: deploy.deployId,
        completionHash: sha(`completion-${slug}-${n}`),
        completedAt: at(completedAt),
        projectExpiresAt: at("2031-01-01T00:00:00Z"),
        preview,
      });
      return deploy.revisionId;
    }

    it("completeDeploy: a preview records the revision and the expiry, the project's revision stays", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const first = await completeAt(a.slug, 1, "2030-01-02T00:00:00Z");
      const preview = await completeAt(a.slug, 2, "2030-01-03T00:00:00Z", true);
      const project = await store.getProject(a.slug);
      expect(project?.revisionId).toBe(first);
      expect(project?.expiresAt).toBe(at("2031-01-01T00:00:00Z"));
      expect((await store.listRevisions(a.slug)).map((r) => [r.revisionId, r.preview])).toEqual([
        [preview, true],
        [first, false],
      ]);
    });

    it("getRevision: the project's revision by id, as listRevisions has it; undefined for another project's or an unknown id", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      await completeAt(a.slug, 1, "2030-01-02T00:00:00Z");
      const r2 = await completeAt(a.slug, 2, "2030-01-03T00:00:00Z", true);
      const r3 = await completeAt(b.slug, 3, "2030-01-04T00:00:00Z");
      const listed = await store.listRevisions(a.slug);
      expect(await store.getRevision(a.slug, r2)).toEqual(listed.find((r) => r.revisionId === r2));
      expect(await store.getRevision(a.slug, r3)).toBeUndefined();
      expect(await store.getRevision(a.slug, "rev9999999")).toBeUndefined();
    });

    it("listRevisions: the project's revisions newest first, with files and bytes from their deploy; none of another project", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      const r1 = await completeAt(a.slug, 1, "2030-01-02T00:00:00Z");
      const r2 = await completeAt(a.slug, 2, "2030-01-04T00:00:00Z");
      await completeAt(b.slug, 3, "2030-01-05T00:00:00Z");
      const listed = await store.listRevisions(a.slug);
      expect(listed).toEqual([
        {
          revisionId: r2,
          deployId: deployRecord(a.slug, 2).deployId,
          createdAt: at("2030-01-04T00:00:00Z"),
          fileCount: 2,
          byteCount: 200,
          preview: false,
          manifestDigest: deployRecord(a.slug, 2).manifestDigest,
          message: null,
        },
        {
          revisionId: r1,
          deployId: deployRecord(a.slug, 1).deployId,
          createdAt: at("2030-01-02T00:00:00Z"),
          fileCount: 1,
          byteCount: 100,
          preview: false,
          manifestDigest: deployRecord(a.slug, 1).manifestDigest,
          message: null,
        },
      ]);
      expect(await store.listRevisions("nobody-here-00000")).toEqual([]);
    });

    it("completeDeploy: the revision keeps the deploy's message, byte for byte; null without one", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const deploy = deployRecord(a.slug, 1);
      await store.createDeploy(deploy);
      const message = "fix: the café's menu ✓ — 'quoted' \\ and %s";
      await store.completeDeploy({
        projectSlug: a.slug,
        deployId: deploy.deployId,
        completionHash: sha("completion-message"),
        completedAt: at("2030-01-02T00:00:00Z"),
        projectExpiresAt: at("2031-01-01T00:00:00Z"),
        message,
      });
      await completeAt(a.slug, 2, "2030-01-03T00:00:00Z");
      expect((await store.listRevisions(a.slug)).map((r) => r.message)).toEqual([null, message]);
    });

    it("setProductionRevision: moves the project to a kept revision; undefined and nothing changed for one it has not", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      const r1 = await completeAt(a.slug, 1, "2030-01-02T00:00:00Z");
      await completeAt(a.slug, 2, "2030-01-03T00:00:00Z");
      const theirs = await completeAt(b.slug, 3, "2030-01-03T00:00:00Z");
      const moved = await store.setProductionRevision(a.slug, r1);
      expect(moved?.revisionId).toBe(r1);
      expect((await store.getProject(a.slug))?.revisionId).toBe(r1);
      const before = await store.getProject(a.slug);
      expect(await store.setProductionRevision(a.slug, theirs)).toBeUndefined();
      expect(await store.setProductionRevision(a.slug, "zzzzzzzzzz")).toBeUndefined();
      expect(await store.getProject(a.slug)).toEqual(before);
    });

    it("listPrunableRevisions: beyond the last `keep` of a project and older than keepAfter, oldest first, never the production one", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      const ids: string[] = [];
      for (let n = 1; n <= 5; n++) ids.push(await completeAt(a.slug, n, `2030-01-0${n}T00:00:00Z`));
      // b has two revisions only: within `keep`, whatever their age.
      await completeAt(b.slug, 6, "2030-01-01T00:00:00Z");
      await completeAt(b.slug, 7, "2030-01-02T00:00:00Z");
      // A rollback to the oldest: it is production, so kept whatever its place.
      await store.setProductionRevision(a.slug, ids[0]!);
      const policy = { keep: 2, keepAfter: at("2030-01-04T00:00:00Z") };
      expect(await store.listPrunableRevisions(policy, 100)).toEqual([
        { projectSlug: a.slug, revisionId: ids[1] },
        { projectSlug: a.slug, revisionId: ids[2] },
      ]);
      expect(await store.listPrunableRevisions(policy, 1)).toEqual([
        { projectSlug: a.slug, revisionId: ids[1] },
      ]);
      // Young revisions are kept beyond `keep`.
      expect(
        await store.listPrunableRevisions({ keep: 2, keepAfter: at("2030-01-01T00:00:00Z") }, 100),
      ).toEqual([]);
    });

    it("listPrunableRevisions: with `max`, young revisions beyond a project's last `max` too, never the production one; `projectSlug` keeps to one project", async () => {
      const a = projectRecord("amber");
      const b = projectRecord("birch");
      await store.createProject(a);
      await store.createProject(b);
      const ids: string[] = [];
      for (let n = 1; n <= 5; n++) ids.push(await completeAt(a.slug, n, `2030-01-0${n}T00:00:00Z`));
      const theirs: string[] = [];
      for (let n = 6; n <= 9; n++) theirs.push(await completeAt(b.slug, n, `2030-01-0${n - 5}T00:00:00Z`));
      await store.setProductionRevision(a.slug, ids[0]!);
      // Every revision is young: only `max` lets some go.
      const policy = { keep: 2, keepAfter: at("2029-01-01T00:00:00Z"), max: 3 };
      expect(await store.listPrunableRevisions(policy, 100)).toEqual([
        { projectSlug: b.slug, revisionId: theirs[0] },
        { projectSlug: a.slug, revisionId: ids[1] },
      ]);
      expect(await store.listPrunableRevisions({ ...policy, projectSlug: a.slug }, 100)).toEqual([
        { projectSlug: a.slug, revisionId: ids[1] },
      ]);
      // Never fewer than `keep`, whatever `max` says.
      expect(await store.listPrunableRevisions({ ...policy, keep: 3, max: 1 }, 100)).toEqual([
        { projectSlug: b.slug, revisionId: theirs[0] },
        { projectSlug: a.slug, revisionId: ids[1] },
      ]);
    });

    it("deleteRevisions: removes the revisions and their deploys, never the project's current one", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const r1 = await completeAt(a.slug, 1, "2030-01-01T00:00:00Z");
      const r2 = await completeAt(a.slug, 2, "2030-01-02T00:00:00Z");
      const r3 = await completeAt(a.slug, 3, "2030-01-03T00:00:00Z");
      expect(await store.deleteRevisions(a.slug, [r1, r3])).toBe(1);
      expect((await store.listRevisions(a.slug)).map((r) => r.revisionId)).toEqual([r3, r2]);
      expect(await store.getDeploy(a.slug, deployRecord(a.slug, 1).deployId)).toBeUndefined();
      expect(await store.getDeploy(a.slug, deployRecord(a.slug, 2).deployId)).toBeDefined();
      expect((await store.getProject(a.slug))?.revisionId).toBe(r3);
      expect(await store.deleteRevisions(a.slug, [])).toBe(0);
    });

    it("deleteRevisions: 0 and nothing removed for the current revision alone, or a project that does not exist", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const r1 = await completeAt(a.slug, 1, "2030-01-01T00:00:00Z");
      expect(await store.deleteRevisions(a.slug, [r1])).toBe(0);
      expect(await store.deleteRevisions("nobody-here-00000", [r1])).toBe(0);
      expect((await store.listRevisions(a.slug)).map((r) => r.revisionId)).toEqual([r1]);
    });

    it("setCustomHostname: without a domain state given, the name is active, claimed at the change's time", async () => {
      const a = projectRecord("amber");
      await store.createProject(a);
      const now = at("2030-01-05T00:00:00Z");
      await store.setCustomHostname(a.slug, "shop.example.com", { now });
      expect((await store.getProject(a.slug))?.domain).toEqual({
        status: "active",
        claimedAt: now,
        checkedAt: null,
        message: null,
      });
      expect(await store.listPendingDomains(at("2030-12-31T00:00:00Z"), 10)).toEqual([]);
    });

    it("createProject: a refusal other than a taken name is thrown, not answered false", async () => {
      const broken = projectRecord("amber", { tokenHash: null as unknown as string });
      await expect(store.createProject(broken)).rejects.toThrow();
      expect(await store.getProject(broken.slug)).toBeUndefined();
    });

    it("ping: answers when the store is up", async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
