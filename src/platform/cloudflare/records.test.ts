import { describe, expect, it } from "vitest";
import { projectKey, revisionHostname, scriptKey, sessionKey } from "./records.js";
import { projectTag } from "./site-script.js";

describe("Cloudflare records", () => {
  it("keys: each kind of record has its prefix, and a colon no hostname has", () => {
    expect([projectKey("amber-otter"), sessionKey("0a1b"), scriptKey("amber-otter--0a1b")]).toEqual([
      "project:amber-otter",
      "session:0a1b",
      "script:amber-otter--0a1b",
    ]);
  });

  it("revisionHostname: the revision, two dashes, the project, then the sites domain", () => {
    expect(revisionHostname("rev0000001", "amber-otter", "sites.test")).toBe(
      "rev0000001--amber-otter.sites.test",
    );
  });

  it("projectTag: a project's scripts are tagged with its slug", () => {
    expect(projectTag("amber-otter")).toBe("project-amber-otter");
  });
});
