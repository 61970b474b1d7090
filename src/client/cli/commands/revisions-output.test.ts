import { describe, expect, it } from "vitest";
import type { ProjectState, PublicProject } from "../../net/api-types.js";
import { MARKS, NEVER, publicProject, revision } from "../test-fixtures.js";
import {
  listJson,
  listText,
  promotedJson,
  promotedText,
  statusJson,
  statusText,
} from "./revisions-output.js";

const NOW = new Date("2026-11-28T10:00:00.000Z");

/** The project of these tests: created 2026-11-01, rev0000002 in production, 10 days left at NOW. */
function project(overrides: Partial<PublicProject> = {}): PublicProject {
  return publicProject({ expiresAt: "2026-12-08T10:00:00.000Z", ...overrides });
}

const STATE: ProjectState = {
  project: project(),
  revisions: [
    revision("rev0000003", { preview: true, files: 1234, bytes: 5 * 1024 * 1024, message: "try it" }),
    revision("rev0000002", { production: true, files: 12, message: "x".repeat(80) }),
    revision("rev0000001", { files: 1 }),
  ],
};

describe("status output", () => {
  it("statusText: every line of a live project, the production revision's message whole", () => {
    expect(statusText(STATE, NOW, MARKS).split("\n")).toEqual([
      "Project <b>calm-river-abc12</b>",
      "  Production: <b>https://calm-river-abc12.sites.test/</b>",
      "  Revision:   rev0000002, deployed 2026-11-20 08:30 UTC (12 files, 2.0 KiB)",
      `  Message:    ${"x".repeat(80)}`,
      "  Domain:     calm-river-abc12.sites.test (generated)",
      "  Revisions:  3 kept (`deploy list` shows them)",
      "  Expires:    2026-12-08 10:00 UTC (in 10 days; every deploy moves it)",
      "",
    ]);
  });

  it("statusText: nothing in production, an active domain, hours left, one day left", () => {
    const bare: ProjectState = {
      project: project({
        revisionId: null,
        customHostname: "www.example.org",
        customHostnameStatus: "active",
        expiresAt: "2026-11-28T12:59:00.000Z",
      }),
      revisions: [revision("rev0000001", { files: 1 })],
    };
    const lines = statusText(bare, NOW).split("\n");
    expect(lines[1]).toBe(
      "  Production: https://calm-river-abc12.sites.test/ (nothing deployed to production yet)",
    );
    expect(lines[2]).toBe("  Revision:   none");
    expect(lines[3]).toBe("  Domain:     www.example.org");
    expect(lines[5]).toBe("  Expires:    2026-11-28 12:59 UTC (in 2 hours; every deploy moves it)");
    const soon = { ...bare, project: project({ expiresAt: "2026-11-28T10:10:00.000Z" }) };
    expect(statusText(soon, NOW)).toContain("(in 1 hour; every deploy moves it)");
    const day = { ...bare, project: project({ expiresAt: "2026-11-29T10:00:00.000Z" }) };
    expect(statusText(day, NOW)).toContain("(in 1 day; every deploy moves it)");
  });

  it("statusText: expired at its very time, never for a server that keeps projects, a pending domain", () => {
    const expired = { ...STATE, project: project({ expiresAt: NOW.toISOString() }) };
    expect(statusText(expired, NOW)).toContain(
      "  Expires:    2026-11-28 10:00 UTC (expired: deploy again to start a new project)\n",
    );
    const never = { ...STATE, project: project({ expiresAt: NEVER }) };
    expect(statusText(never, NOW)).toContain(
      "  Expires:    never (this server keeps projects until they are deleted)\n",
    );
    const pending = {
      ...STATE,
      project: project({
        customHostname: "www.example.org",
        customHostnameStatus: "pending",
        productionUrl: "https://www.example.org/",
      }),
    };
    const text = statusText(pending, NOW, MARKS);
    expect(text).toContain("  Production: <b>https://calm-river-abc12.sites.test/</b>\n");
    expect(text).toContain(
      "  Domain:     <y>www.example.org (pending: DNS does not prove it yet; `deploy domain --check` asks again)</y>\n",
    );
  });

  it("statusJson: flat fields; expired from the expiry time on; pending and message only when they apply", () => {
    expect(JSON.parse(statusJson(STATE, NOW))).toEqual({
      projectSlug: "calm-river-abc12",
      productionUrl: "https://calm-river-abc12.sites.test/",
      revisionId: "rev0000002",
      revisionUrl: "https://rev0000002--calm-river-abc12.sites.test/",
      hostname: "calm-river-abc12.sites.test",
      customHostname: null,
      message: "x".repeat(80),
      createdAt: "2026-11-01T09:00:00.000Z",
      expiresAt: "2026-12-08T10:00:00.000Z",
      expired: false,
      revisions: 3,
    });
    const bare: ProjectState = {
      project: project({
        expiresAt: NOW.toISOString(),
        customHostname: "www.example.org",
        customHostnameStatus: "pending",
      }),
      revisions: [],
    };
    const json = JSON.parse(statusJson(bare, NOW));
    expect(json).toMatchObject({
      revisionUrl: null,
      expired: true,
      customHostnameStatus: "pending",
      revisions: 0,
    });
    expect(json).not.toHaveProperty("message");
  });
});

describe("list output", () => {
  it("listText: aligned columns, production and previews marked and painted, long messages clipped", () => {
    expect(listText(STATE, MARKS).split("\n")).toEqual([
      "   REVISION    DEPLOYED              FILES     SIZE              MESSAGE",
      "<y>   rev0000003  2026-11-20 08:30 UTC  1,234  5.0 MiB  preview     try it</y>",
      `<g>*  rev0000002  2026-11-20 08:30 UTC     12  2.0 KiB  production  ${"x".repeat(71)}…</g>`,
      "   rev0000001  2026-11-20 08:30 UTC      1  2.0 KiB",
      "3 revisions kept for calm-river-abc12; * serves https://calm-river-abc12.sites.test/",
      "",
    ]);
  });

  it("listText: without messages no MESSAGE column; a message of exactly 72 characters stays whole", () => {
    const plain: ProjectState = {
      project: project(),
      revisions: [revision("rev0000001", { production: true, files: 1 })],
    };
    expect(listText(plain).split("\n")).toEqual([
      "   REVISION    DEPLOYED              FILES     SIZE",
      "*  rev0000001  2026-11-20 08:30 UTC      1  2.0 KiB  production",
      "1 revision kept for calm-river-abc12; * serves https://calm-river-abc12.sites.test/",
      "",
    ]);
    const exact = { project: project(), revisions: [revision("rev0000001", { message: "y".repeat(72) })] };
    expect(listText(exact)).toContain(`${"y".repeat(72)}\n`);
  });

  it("listText: a project without revisions says how to make the first", () => {
    expect(listText({ project: project(), revisions: [] })).toBe(
      "calm-river-abc12 has no revision yet: `deploy <dir>` makes the first.\n",
    );
  });

  it("listJson: the slug and the revisions as the server gave them", () => {
    expect(JSON.parse(listJson(STATE))).toEqual({
      projectSlug: "calm-river-abc12",
      revisions: STATE.revisions,
    });
  });
});

describe("promote output", () => {
  const result = {
    revisionId: "rev0000001",
    productionUrl: "https://calm-river-abc12.sites.test/",
    revisionUrl: "https://rev0000001--calm-river-abc12.sites.test/",
    project: project(),
  };

  it("promotedText: what serves now and what served before", () => {
    expect(promotedText("Rolled back", result, "rev0000002")).toBe(
      "Rolled back calm-river-abc12: production serves revision rev0000001 (was rev0000002)\n" +
        "  Production: https://calm-river-abc12.sites.test/\n" +
        "  Revision:   https://rev0000001--calm-river-abc12.sites.test/\n",
    );
    expect(promotedText("Promoted", result, "rev0000001").split("\n")[0]).toBe(
      "Promoted calm-river-abc12: production serves revision rev0000001 (it already was)",
    );
    expect(promotedText("Promoted", result, null).split("\n")[0]).toBe(
      "Promoted calm-river-abc12: production serves revision rev0000001",
    );
  });

  it("promotedJson: the answer and the revision before", () => {
    expect(JSON.parse(promotedJson(result, null))).toEqual({ ...result, previousRevisionId: null });
  });
});
