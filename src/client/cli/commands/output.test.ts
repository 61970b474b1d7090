import { describe, expect, it } from "vitest";
import type { DeploySummary } from "../../deploy/deploy-folder.js";
import type { DomainResult } from "../../net/api-types.js";
import { MARKS, NEVER, publicProject as project } from "../test-fixtures.js";
import { deleteText, deployJson, deployText, domainText, expiryText, resetText } from "./output.js";

function summary(overrides: Partial<DeploySummary> = {}): DeploySummary {
  return {
    projectSlug: "calm-river-abc12",
    revisionId: "rev0000001",
    productionUrl: "https://calm-river-abc12.sites.test/",
    revisionUrl: "https://rev0000001--calm-river-abc12.sites.test/",
    expiresAt: "2026-12-28T10:20:30.000Z",
    files: 1200,
    uploaded: 3,
    reused: 1190,
    bytesUploaded: 2048,
    durationMs: 1500,
    identical: 0,
    preview: false,
    skippedDotfiles: [],
    skippedGitignored: [],
    ...overrides,
  };
}

describe("deploy output", () => {
  it("deployText: a production deploy, every line, nothing skipped", () => {
    expect(deployText(summary(), MARKS)).toBe(
      [
        "<g>Deployed calm-river-abc12 (revision rev0000001)</g>",
        "  Production: <b>https://calm-river-abc12.sites.test/</b>",
        "  Revision:   https://rev0000001--calm-river-abc12.sites.test/",
        "  Files:      1,200 total: 3 uploaded, 1,190 already on the server",
        "  Sent:       2.0 KiB",
        "  Time:       1.5s",
        "  Expires:    2026-12-28 10:20 UTC, unless deployed again before then (every deploy, even an unchanged one, moves the date)",
        "",
      ].join("\n"),
    );
  });

  it("deployText: a preview with an alias, a message, identical files, skipped paths and a new project", () => {
    const text = deployText(
      summary({
        preview: true,
        alias: "staging",
        aliasUrl: "https://staging--calm-river-abc12.sites.test/",
        message: "new checkout",
        identical: 2,
        skippedDotfiles: [".env"],
        skippedGitignored: ["a.log", "b.log"],
        previousProjectSlug: "old-slug-zzz99",
      }),
      MARKS,
    );
    expect(text.split("\n")).toEqual([
      "<y>Preview of calm-river-abc12 (revision rev0000001); production unchanged</y>",
      "  Revision:   <b>https://rev0000001--calm-river-abc12.sites.test/</b>",
      "  Alias:      <b>https://staging--calm-river-abc12.sites.test/</b> (staging: moves to each deploy with --alias staging)",
      "  Production: https://calm-river-abc12.sites.test/ (unchanged; `deploy promote rev0000001` puts this revision live)",
      "  Message:    new checkout",
      "  Files:      1,200 total: 3 uploaded, 2 identical to another file, 1,190 already on the server",
      "  Skipped:    2 ignored by .gitignore, 1 dotfiles (not deployed)",
      "  Sent:       2.0 KiB",
      "  Time:       1.5s",
      "  Expires:    2026-12-28 10:20 UTC, unless deployed again before then (every deploy, even an unchanged one, moves the date)",
      "  Note: the previous project old-slug-zzz99 was gone; the URL changed.",
      "",
    ]);
  });

  it("deployText: a preview without an alias has no Alias line; only dotfiles skipped", () => {
    const lines = deployText(summary({ preview: true, skippedDotfiles: [".env"] })).split("\n");
    expect(lines[2]).toBe(
      "  Production: https://calm-river-abc12.sites.test/ (unchanged; `deploy promote rev0000001` puts this revision live)",
    );
    expect(lines).toContain("  Skipped:    1 dotfiles (not deployed)");
  });

  it("deployText: unchanged says nothing was sent; a pending domain shows the URL that serves and marks the domain", () => {
    const lines = deployText(
      summary({
        unchanged: true,
        pendingDomain: { hostname: "www.example.org", servingUrl: "https://calm-river-abc12.sites.test/" },
        productionUrl: "https://www.example.org/",
      }),
      MARKS,
    ).split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "<g>No changes: calm-river-abc12 already serves these files (revision rev0000001); nothing sent, its expiry renewed</g>",
      "  Production: <b>https://calm-river-abc12.sites.test/</b>",
      "  Revision:   https://rev0000001--calm-river-abc12.sites.test/",
      "<y>  Domain:     www.example.org (pending: DNS does not prove it yet; `deploy domain --check` asks again)</y>",
    ]);
  });

  it("deployJson: the keys of a plain deploy, and null for a project that never expires", () => {
    expect(JSON.parse(deployJson(summary({ expiresAt: NEVER })))).toEqual({
      projectSlug: "calm-river-abc12",
      revisionId: "rev0000001",
      productionUrl: "https://calm-river-abc12.sites.test/",
      revisionUrl: "https://rev0000001--calm-river-abc12.sites.test/",
      expiresAt: null,
      preview: false,
      files: 1200,
      uploaded: 3,
      identical: 0,
      bytesUploaded: 2048,
      durationMs: 1500,
    });
    expect(deployJson(summary()).endsWith("}\n")).toBe(true);
  });

  it("deployJson: optional keys appear only when they apply", () => {
    // Keys the JSON carries as the summary has them.
    const passedOn = {
      unchanged: true,
      skippedDotfiles: [".env"],
      skippedGitignored: ["a.log"],
      previousProjectSlug: "old-slug-zzz99",
      message: "m",
      alias: "staging",
      aliasUrl: "https://staging--x.example.com/",
    };
    const pendingDomain = { hostname: "www.example.org", servingUrl: "https://x.example.com/" };
    expect(JSON.parse(deployJson(summary({ ...passedOn, pendingDomain })))).toMatchObject({
      expiresAt: "2026-12-28T10:20:30.000Z",
      ...passedOn,
      domainPending: true,
    });
    expect(JSON.parse(deployJson(summary({ unchanged: false })))).not.toHaveProperty("unchanged");
  });

  it("expiryText: a date and how to keep it, or never", () => {
    expect(expiryText(NEVER)).toBe("never (this server keeps projects until they are deleted)");
  });
});

describe("domain and delete output", () => {
  const pending: DomainResult = {
    domain: {
      hostname: "www.example.org",
      cnameTarget: "calm-river-abc12.sites.test",
      status: "pending",
      records: [
        { type: "TXT", name: "_deploy.www.example.org", value: "proof-123" },
        { type: "CNAME", name: "www.example.org", value: "calm-river-abc12.sites.test" },
      ],
      checkedAt: null,
      message: null,
      pendingUntil: "2026-11-29T10:00:00.000Z",
    },
    project: project({ customHostname: "www.example.org", productionUrl: "https://www.example.org/" }),
  };

  it("domainText: a pending domain, its records, the generated address and when the claim lapses", () => {
    expect(domainText(pending).split("\n")).toEqual([
      "calm-river-abc12 now answers at www.example.org",
      "  Production: https://www.example.org/",
      "  Also at:    https://calm-river-abc12.sites.test/ (the generated address keeps serving)",
      "  DNS:        point a CNAME record for www.example.org at calm-river-abc12.sites.test",
      "              or prove control with a TXT record _deploy.www.example.org holding proof-123",
      "  Status:     pending: DNS not checked yet",
      "              HTTPS waits for the proof; the claim lapses 2026-11-29 10:00 UTC without it. Check again: deploy domain --check",
      "",
    ]);
  });

  it("domainText: an active domain with its message; a pending one's own message and no lapse date", () => {
    const active = domainText({
      domain: { ...pending.domain, status: "active", records: [], message: "CNAME found" },
      project: pending.project,
    });
    expect(active).toContain("  Status:     active (CNAME found)\n");
    expect(active).not.toContain("DNS:");
    const plain = domainText({
      domain: { ...pending.domain, status: "active", message: null },
      project: pending.project,
    });
    expect(plain).toContain("  Status:     active\n");
    const waiting = domainText({
      domain: { ...pending.domain, message: "no CNAME yet", pendingUntil: null },
      project: pending.project,
    });
    expect(waiting).toContain("  Status:     pending: no CNAME yet\n");
    expect(waiting).toContain("the claim lapses later without it.");
  });

  it("domainText: the TXT record is found by its type, whatever the order", () => {
    const records = [...pending.domain.records].reverse();
    expect(domainText({ ...pending, domain: { ...pending.domain, records } })).toContain(
      "              or prove control with a TXT record _deploy.www.example.org holding proof-123\n",
    );
  });

  it("domainText: on the generated hostname there is no Also at line", () => {
    const result = {
      domain: { ...pending.domain, hostname: "calm-river-abc12.sites.test" },
      project: project(),
    };
    expect(domainText(result)).not.toContain("Also at:");
  });

  it("resetText and deleteText: the project and its URLs", () => {
    expect(resetText(project())).toBe(
      "calm-river-abc12 is back on its generated hostname calm-river-abc12.sites.test\n  Production: https://calm-river-abc12.sites.test/\n",
    );
    expect(deleteText("calm-river-abc12", "https://x.example.com/")).toBe(
      "Deleted project calm-river-abc12; https://x.example.com/ no longer answers\n",
    );
    expect(deleteText("calm-river-abc12", undefined)).toBe("Deleted project calm-river-abc12\n");
  });
});
