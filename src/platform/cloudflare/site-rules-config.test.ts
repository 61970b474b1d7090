import { describe, expect, it } from "vitest";
import { hashAsset } from "../../core/asset-hash.js";
import { InvalidSiteConfigError } from "../../core/errors.js";
import { rulesHashesOf, siteRulesConfig } from "./site-rules-config.js";

const REDIRECTS = "/old /new 301\n";
const HEADERS = "/*\n  X-Frame-Options: DENY\n";
/** REDIRECTS as Cloudflare gets it: the rule with and without its trailing slash (cloudflare-redirects). */
const CLOUDFLARE_REDIRECTS = "/old /new 301\n/old/ /new 301\n";
const hashOf = (text: string, path: string) => hashAsset(Buffer.from(text), path);

describe("Cloudflare: the site's rules files in the assets configuration", () => {
  it("rulesHashesOf: the manifest's hashes of /_redirects and /_headers, nothing else", () => {
    const entries = [
      { path: "/_redirects", hash: "a".repeat(32), size: 1 },
      { path: "/docs/_headers", hash: "b".repeat(32), size: 1 },
      { path: "/index.html", hash: "c".repeat(32), size: 1 },
    ];
    expect(rulesHashesOf(entries)).toEqual({ redirects: "a".repeat(32) });
    expect(rulesHashesOf([])).toEqual({});
  });

  it("siteRulesConfig: texts that are the manifest's files become _redirects (written for Cloudflare) and _headers", async () => {
    const hashes = {
      redirects: await hashOf(REDIRECTS, "/_redirects"),
      headers: await hashOf(HEADERS, "/_headers"),
    };
    expect(await siteRulesConfig(hashes, { redirects: REDIRECTS, headers: HEADERS })).toEqual({
      _redirects: CLOUDFLARE_REDIRECTS,
      _headers: HEADERS,
    });
    expect(await siteRulesConfig({}, undefined)).toEqual({});
  });

  it("siteRulesConfig: INVALID_SITE_CONFIG for a text that is not the file in the manifest", async () => {
    const hashes = { redirects: await hashOf(REDIRECTS, "/_redirects") };
    const refused = siteRulesConfig(hashes, { redirects: "/old /elsewhere 301\n" });
    await expect(refused).rejects.toBeInstanceOf(InvalidSiteConfigError);
    await expect(refused).rejects.toThrow(
      "_redirects: the text sent with the deploy is not the file in the manifest",
    );
  });

  it("siteRulesConfig: INVALID_SITE_CONFIG for a file in the manifest whose text was not sent", async () => {
    const hashes = { headers: await hashOf(HEADERS, "/_headers") };
    await expect(siteRulesConfig(hashes, { redirects: undefined })).rejects.toThrow(
      "_headers: on Cloudflare its text must be sent with the deploy (siteRules.headers); update the deploy client",
    );
  });

  it("siteRulesConfig: INVALID_SITE_CONFIG for a text sent without its file in the manifest", async () => {
    await expect(siteRulesConfig({}, { headers: HEADERS })).rejects.toThrow(
      "_headers: sent with the deploy but not in the manifest",
    );
  });

  it("siteRulesConfig: a file that does not parse is refused naming its line", async () => {
    const bad = "/a /b\n/c\n";
    const refused = siteRulesConfig({ redirects: await hashOf(bad, "/_redirects") }, { redirects: bad });
    await expect(refused).rejects.toThrow('_redirects:2: expected "from to [status]", got 1 field');
  });

  it("siteRulesConfig: a leading BOM is hashed with the file but left out of the text Cloudflare gets; one further in is kept", async () => {
    const leading = `\uFEFF${REDIRECTS}`;
    const further = `# a note\uFEFF\n${HEADERS}`;
    const hashes = {
      redirects: await hashOf(leading, "/_redirects"),
      headers: await hashOf(further, "/_headers"),
    };
    expect(await siteRulesConfig(hashes, { redirects: leading, headers: further })).toEqual({
      _redirects: CLOUDFLARE_REDIRECTS,
      _headers: further,
    });
  });
});
