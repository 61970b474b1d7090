import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidCompletionError, InvalidSiteConfigError, RevisionNotFoundError } from "../../core/errors.js";
import type { UploadSession } from "../../core/ports/index.js";
import { rowsOf } from "./state/platform-db.js";
import { openPlatformDatabase } from "./state/sqlite-database.js";
import { UNLIMITED } from "./quotas/storage-limits.js";
import {
  ACCOUNT,
  manifestOf,
  rowsOfTable,
  testPlatform,
  type TestPlatform,
  uploadInto,
} from "../../../test/support/test-platform.js";
import { revisionFiles } from "../../../test/support/revision-files.js";

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});
afterEach(() => t.remove());

const FILES = { "index.html": "<p>hi</p>", "a.css": "p{}", _redirects: "/old /new 301\n" };
// Not on a second: the token (whole seconds, rounded up) outlives the session by 500 ms.
const expiresAt = () => new Date(t.clock.ms + 60_500);

async function opened(project = "blue", files: Record<string, string> = FILES): Promise<UploadSession> {
  return t.platform.openUploadSession({
    projectSlug: project,
    entries: manifestOf(files),
    expiresAt: expiresAt(),
  });
}
async function publish(
  session: UploadSession,
  changes: { completionJwt?: string; projectSlug?: string; revisionId?: string } = {},
) {
  const completionJwt = await t.tokens.sign(["completion"], session.sessionId, ACCOUNT, session.expiresAt);
  return t.platform.publishRevision({
    projectSlug: "blue",
    revisionId: "r1",
    sessionId: session.sessionId,
    completionJwt,
    hostnames: ["blue.test", "www.blue.example"],
    canonical: { hostname: "www.blue.example", url: "https://www.blue.example/" },
    expiresAt: new Date(5e12),
    ...changes,
  });
}
const refusal = (message: string) => expect.objectContaining({ name: InvalidCompletionError.name, message });

describe("SelfHostedPlatform.publishRevision", () => {
  it("publishRevision: the session's manifest rows are gone once published; the same publish again changes nothing, another revision of the session is refused", async () => {
    const session = await opened();
    await uploadInto(t, session.sessionId, Object.values(FILES));
    await publish(session);
    // Deleted after the answer: the platform says when.
    await t.platform.settled();
    for (const table of ["session_assets", "session_hashes", "session_blobs"]) {
      expect({ table, rows: await rowsOfTable(t, table) }).toEqual({ table, rows: [] });
    }
    const files = await revisionFiles(t.database.db);
    expect(files.map((row) => row["path"]).sort()).toEqual(["/_redirects", "/a.css", "/index.html"]);
    const revisions = await rowsOfTable(t, "revisions");
    await publish(session);
    expect(await revisionFiles(t.database.db)).toEqual(files);
    expect(await rowsOfTable(t, "revisions")).toEqual(revisions);
    await expect(publish(session, { revisionId: "r2" })).rejects.toEqual(
      refusal("upload session was published already; prepare the deploy again"),
    );
    expect(await rowsOfTable(t, "revisions")).toEqual(revisions);
  });

  it("publishRevision: the session's rows deleted after the answer are gone once the platform is closed", async () => {
    // Many paths of one content: a deletion of several slices, one upload.
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}.html`, "same"]));
    const session = await opened("blue", many);
    await uploadInto(t, session.sessionId, ["same"]);
    await publish(session);
    await t.platform.close();
    const reopened = await openPlatformDatabase(t.dir);
    try {
      for (const table of ["session_assets", "session_hashes", "session_blobs"]) {
        const rows = await rowsOf(reopened.db, sql`SELECT * FROM ${sql.table(table)}`);
        expect({ table, rows }).toEqual({ table, rows: [] });
      }
    } finally {
      await reopened.close();
    }
  });

  it("publishRevision: a publish refused in its last step (the project quota) leaves no file of the revision, and the session whole", async () => {
    const storage = { ...UNLIMITED };
    await t.remove();
    t = await testPlatform(storage);
    const session = await opened();
    await uploadInto(t, session.sessionId, Object.values(FILES));
    const before = await rowsOfTable(t, "session_assets");
    storage.projectQuotaBytes = 1;
    await expect(publish(session)).rejects.toMatchObject({ quota: "project" });
    expect(await revisionFiles(t.database.db)).toEqual([]);
    expect(await rowsOfTable(t, "manifest_files")).toEqual([]);
    expect(await rowsOfTable(t, "manifests")).toEqual([]);
    expect(await rowsOfTable(t, "revisions")).toEqual([]);
    expect(await rowsOfTable(t, "session_assets")).toEqual(before);
    storage.projectQuotaBytes = 0;
    await publish(session);
    expect(await revisionFiles(t.database.db)).toHaveLength(3);
  });

  it("publishRevision: the session's files become the production revision on its hostnames, with its rules, the canonical URL on the other hosts, and its bytes no longer pending", async () => {
    const session = await opened();
    await uploadInto(t, session.sessionId, Object.values(FILES));
    await t.sessions.reserve(t.database.db, session.sessionId, "10.0.0.1", 100);
    await publish(session);
    expect(await rowsOfTable(t, "sites")).toEqual([
      { project_slug: "blue", revision_id: "r1", expires_at: 5e12, production_since: t.clock.ms },
    ]);
    expect(await rowsOfTable(t, "site_hosts")).toEqual([
      { hostname: "blue.test", project_slug: "blue", canonical_url: "https://www.blue.example/" },
      { hostname: "www.blue.example", project_slug: "blue", canonical_url: null },
    ]);
    const files = await rowsOf(t.database.db, sql<{ path: string }>`SELECT path FROM manifest_files`);
    expect(files.map((f) => f.path).sort()).toEqual(["/_redirects", "/a.css", "/index.html"]);
    expect(await rowsOfTable(t, "revision_rules")).toEqual([
      expect.objectContaining({
        project_slug: "blue",
        revision_id: "r1",
        rules: expect.stringContaining('"/old"'),
      }),
    ]);
    expect(await t.sessions.pendingBytesOf(t.database.db, "10.0.0.1", 0)).toBe(0);
  });

  it("publishRevision: INVALID_COMPLETION for a bad token, another session's token, a session gone or of another project, an expired session, or content still missing; nothing published", async () => {
    const session = await opened();
    const other = await opened("blue", { x: "x" });
    const otherToken = await t.tokens.sign(["completion"], other.sessionId, ACCOUNT, other.expiresAt);
    await expect(publish(session, { completionJwt: session.uploadJwt })).rejects.toEqual(
      refusal("completion token is invalid or expired"),
    );
    await expect(publish(session, { completionJwt: otherToken })).rejects.toEqual(
      refusal("completion token belongs to another deploy"),
    );
    await expect(publish(session, { projectSlug: "green" })).rejects.toEqual(
      refusal("upload session is gone; prepare the deploy again"),
    );
    await expect(publish(session)).rejects.toEqual(refusal("3 assets are still missing; upload them first"));
    await uploadInto(t, session.sessionId, Object.values(FILES).slice(1));
    await expect(publish(session)).rejects.toEqual(refusal("1 assets are still missing; upload them first"));
    await uploadInto(t, session.sessionId, Object.values(FILES).slice(0, 1));
    t.clock.ms = session.expiresAt.getTime();
    await expect(publish(session)).rejects.toEqual(
      refusal("upload session expired; prepare the deploy again"),
    );
    await t.sessions.discard(session.sessionId);
    t.clock.ms -= 1;
    await expect(publish(session)).rejects.toEqual(
      refusal("upload session is gone; prepare the deploy again"),
    );
    expect(await rowsOfTable(t, "sites")).toEqual([]);
    expect(await rowsOfTable(t, "revisions")).toEqual([]);
  });

  it("publishRevision: a session one millisecond before its end publishes; rules that do not parse publish nothing", async () => {
    const bad = await opened("blue", { _headers: "no path first\n" });
    await uploadInto(t, bad.sessionId, ["no path first\n"]);
    await expect(publish(bad)).rejects.toBeInstanceOf(InvalidSiteConfigError);
    expect(await rowsOfTable(t, "revisions")).toEqual([]);
    const session = await opened();
    await uploadInto(t, session.sessionId, Object.values(FILES));
    t.clock.ms = session.expiresAt.getTime() - 1;
    await publish(session);
    expect(await rowsOfTable(t, "revisions")).toEqual([
      expect.objectContaining({ project_slug: "blue", revision_id: "r1", created_at: t.clock.ms }),
    ]);
  });
});

describe("SelfHostedPlatform site changes", () => {
  it("promoteRevision: production moves to a known revision from the clock's now; REVISION_NOT_FOUND for another", async () => {
    const session = await opened();
    await uploadInto(t, session.sessionId, Object.values(FILES));
    await publish(session);
    await publish(await opened(), { revisionId: "r2" });
    t.clock.ms += 5000;
    await t.platform.promoteRevision("blue", "r1");
    expect(await rowsOfTable(t, "sites")).toEqual([
      expect.objectContaining({ revision_id: "r1", production_since: t.clock.ms }),
    ]);
    const error = await t.platform.promoteRevision("blue", "r9").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RevisionNotFoundError);
    expect((error as Error).message).toBe("revision r9 not found for project blue");
  });

  it("pruneRevisions, updateSite, unpublishProject: forget a revision, move hostnames and expiry, then remove the project and reclaim its content", async () => {
    const session = await opened();
    const pack = await uploadInto(t, session.sessionId, Object.values(FILES));
    await publish(session);
    // A session publishes one revision: the second is another deploy (its content is the project's).
    await publish(await opened(), { revisionId: "r2" });
    await t.platform.pruneRevisions("blue", ["r1"]);
    expect((await rowsOfTable(t, "revisions")).map((r) => r["revision_id"])).toEqual(["r2"]);
    await t.platform.updateSite("blue", {
      hostnames: ["b.test", "c.test"],
      canonical: { hostname: "c.test", url: "https://c.test/" },
      expiresAt: new Date(7e12),
    });
    expect(await rowsOfTable(t, "sites")).toEqual([
      expect.objectContaining({ revision_id: "r2", expires_at: 7e12 }),
    ]);
    expect(await rowsOfTable(t, "site_hosts")).toEqual([
      { hostname: "b.test", project_slug: "blue", canonical_url: "https://c.test/" },
      { hostname: "c.test", project_slug: "blue", canonical_url: null },
    ]);
    await t.platform.unpublishProject("blue");
    for (const table of [
      "sites",
      "site_hosts",
      "revisions",
      "manifests",
      "manifest_files",
      "upload_sessions",
      "blobs",
      "packs",
    ])
      expect(await rowsOfTable(t, table)).toEqual([]);
    expect((await t.files.storage.list()).map((p) => p.id)).not.toContain(pack);
  });
});
