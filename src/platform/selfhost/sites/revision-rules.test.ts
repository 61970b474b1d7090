import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidSiteConfigError } from "../../../core/errors.js";
import { parseSiteRules } from "../../../core/site-rules/index.js";
import { Pacer } from "../../../shared/event-loop.js";
import { readSessionRules } from "./revision-rules.js";
import {
  manifestOf,
  testPlatform,
  type TestPlatform,
  uploadInto,
} from "../../../../test/support/test-platform.js";

let t: TestPlatform;
beforeEach(async () => {
  t = await testPlatform();
});
afterEach(() => t.remove());

/** Session `id` of these files, every one uploaded. */
async function sessionOf(id: string, files: Record<string, string>): Promise<void> {
  await t.sessions.open(
    { id, projectSlug: "blue", expiresAt: 2e12 },
    manifestOf(files),
    0,
    new Pacer(60_000),
  );
  await uploadInto(t, id, Object.values(files));
}

const rules = (id: string) => readSessionRules(t.database, t.reader, id);

describe("readSessionRules", () => {
  it("readSessionRules: undefined for a site with neither file at its root (one in a folder is a plain file)", async () => {
    await sessionOf("s1", {
      "index.html": "hi",
      "docs/_redirects": "/a /b",
      "docs/_headers": "/*\n  X-A: 1",
    });
    expect(await rules("s1")).toBeUndefined();
  });

  it("readSessionRules: the JSON of `_redirects` alone, of `_headers` alone, and of both, each read from its own session", async () => {
    const redirects = "/old /new 301\n";
    const headers = "/a\n  X-B: 2\n";
    await sessionOf("r", { _redirects: redirects });
    await sessionOf("h", { _headers: headers });
    await sessionOf("both", { _redirects: redirects, _headers: headers, "index.html": "hi" });
    expect(await rules("r")).toBe(JSON.stringify(parseSiteRules({ redirects, headers: undefined })));
    expect(await rules("h")).toBe(JSON.stringify(parseSiteRules({ redirects: undefined, headers })));
    expect(await rules("both")).toBe(JSON.stringify(parseSiteRules({ redirects, headers })));
    expect(JSON.parse((await rules("both"))!)).toMatchObject({
      redirects: [{ from: "/old" }],
      headers: [{ path: "/a" }],
    });
  });

  it("readSessionRules: a file that does not parse is InvalidSiteConfigError naming it and the line", async () => {
    await sessionOf("bad", { _redirects: "/fine /ok 302\n/only-one-field\n", _headers: "/*\n  X-A: 1\n" });
    const error = await rules("bad").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSiteConfigError);
    expect(error).toMatchObject({ file: "_redirects", line: 2 });
  });
});
