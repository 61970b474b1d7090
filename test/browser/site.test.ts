import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, startTestBed, writeSite, type TestBed } from "../client/helpers.js";
import { CHROMIUM, chromiumPresent } from "./chromium.js";

const present = chromiumPresent();
const SHOTS = fileURLToPath(new URL("../../.tmp/browser", import.meta.url));

const SITE = {
  "index.html": `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>Browser fixture</title>
    <link rel="stylesheet" href="/css/style.css">
    <script src="/js/app.js" defer></script>
  </head>
  <body>
    <h1 id="status">waiting for the script</h1>
  </body>
</html>
`,
  "css/style.css": `#status { color: rgb(0, 128, 0); font-family: sans-serif; }
.ready { background: rgb(255, 250, 205); }
`,
  "js/app.js": `document.getElementById("status").textContent = "script ran";
document.body.classList.add("ready");
`,
};

let bed: TestBed;
let browser: Browser;
let deployed: { productionUrl: string; revisionUrl: string };

describe.skipIf(!present && !process.env.CI)("a deployed site in a real browser", () => {
  beforeAll(async () => {
    if (!present) throw new Error(`no chromium at ${CHROMIUM}: run scripts/install-chromium.sh first`);
    bed = await startTestBed();
    const site = join(bed.dir, "browser-site");
    await writeSite(site, SITE);
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    deployed = JSON.parse(run.stdout) as typeof deployed;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    await mkdir(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await bed?.stop();
  });

  for (const which of ["productionUrl", "revisionUrl"] as const) {
    it(`browser: the ${which === "productionUrl" ? "production" : "revision"} URL runs the script and applies the style`, async () => {
      const page = await browser.newPage();
      try {
        const response = await page.goto(deployed[which]);
        expect(response?.status()).toBe(200);
        // Expressions run in the page (the project's TypeScript has no DOM types).
        await page.waitForFunction('document.getElementById("status")?.textContent === "script ran"');
        const color = await page.evaluate<string>(
          'getComputedStyle(document.getElementById("status")).color',
        );
        const background = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
        expect(color).toBe("rgb(0, 128, 0)");
        expect(background).toBe("rgb(255, 250, 205)");
        await page.screenshot({
          path: join(SHOTS, `${which === "productionUrl" ? "production" : "revision"}.png`),
        });
      } finally {
        await page.close();
      }
    });
  }
});
