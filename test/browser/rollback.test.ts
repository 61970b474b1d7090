import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, startTestBed, writeSite, type TestBed } from "../client/helpers.js";
import { CHROMIUM, chromiumPresent } from "./chromium.js";

const present = chromiumPresent();

let bed: TestBed;
let browser: Browser;

const pageOf = (version: string) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>${version}</title></head>
  <body><h1 id="version">${version}</h1></body>
</html>
`;

describe.skipIf(!present && !process.env.CI)("a rollback in a real browser", () => {
  beforeAll(async () => {
    if (!present) throw new Error(`no chromium at ${CHROMIUM}: run scripts/install-chromium.sh first`);
    bed = await startTestBed();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await bed?.stop();
  });

  it("browser: after deploy rollback, reloading the production URL shows the earlier version", async () => {
    const site = join(bed.dir, "rollback-browser");
    await writeSite(site, { "index.html": pageOf("version one") });
    const one = await runInProcess([site, "--json"], bed.env);
    expect(one.code, one.stderr).toBe(0);
    await writeFile(join(site, "index.html"), pageOf("version two"));
    const two = await runInProcess([site, "--json"], bed.env);
    expect(two.code, two.stderr).toBe(0);
    const { productionUrl } = JSON.parse(two.stdout) as { productionUrl: string };

    const page = await browser.newPage();
    try {
      await page.goto(productionUrl);
      expect(await page.textContent("#version")).toBe("version two");
      const rolled = await runInProcess(["rollback", "--dir", site], bed.env);
      expect(rolled.code, rolled.stderr).toBe(0);
      // A plain reload, as a person would: the production page must not be served from a cache.
      await page.reload();
      expect(await page.textContent("#version")).toBe("version one");
      const promoted = await runInProcess(
        ["promote", (JSON.parse(two.stdout) as { revisionId: string }).revisionId, "--dir", site],
        bed.env,
      );
      expect(promoted.code, promoted.stderr).toBe(0);
      await page.reload();
      expect(await page.textContent("#version")).toBe("version two");
    } finally {
      await page.close();
    }
  });
});
