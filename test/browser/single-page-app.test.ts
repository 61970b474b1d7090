import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcess, startTestBed, writeSite, type TestBed } from "../client/helpers.js";
import { CHROMIUM, chromiumPresent } from "./chromium.js";

const present = chromiumPresent();
const SHOTS = fileURLToPath(new URL("../../.tmp/browser", import.meta.url));

// A small single-page app: client-side routes drawn from location.pathname, links that move with
// history.pushState, assets at absolute paths (so they load from any deep link), no 404.html.
const APP = {
  "index.html": `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>SPA fixture</title>
    <script src="/js/router.js" defer></script>
  </head>
  <body>
    <nav><a href="/" data-link>Home</a> <a href="/settings/profile" data-link id="to-profile">Profile</a></nav>
    <main id="view">loading</main>
  </body>
</html>
`,
  "js/router.js": `const routes = { "/": "Home page", "/settings/profile": "Profile settings" };
function render() {
  document.getElementById("view").textContent = routes[location.pathname] ?? "No such route";
}
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-link]");
  if (!link) return;
  event.preventDefault();
  history.pushState({}, "", link.getAttribute("href"));
  render();
});
addEventListener("popstate", render);
render();
`,
  _redirects: `# the old address of the profile page
/old-profile   /settings/profile   301
`,
};

let bed: TestBed;
let browser: Browser;
let productionUrl: string;

describe.skipIf(!present && !process.env.CI)("a single-page app in a real browser", () => {
  beforeAll(async () => {
    if (!present) throw new Error(`no chromium at ${CHROMIUM}: run scripts/install-chromium.sh first`);
    bed = await startTestBed();
    const site = join(bed.dir, "spa-site");
    await writeSite(site, APP);
    const run = await runInProcess([site, "--json"], bed.env);
    expect(run.code, run.stderr).toBe(0);
    productionUrl = (JSON.parse(run.stdout) as { productionUrl: string }).productionUrl;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
    await mkdir(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await bed?.stop();
  });

  const viewOf = async (page: Page, text: string) => {
    await page.waitForFunction(`document.getElementById("view")?.textContent === ${JSON.stringify(text)}`);
  };

  it("browser: a deep link to a client-side route gets the app (200) and renders that route", async () => {
    const page = await browser.newPage();
    try {
      const response = await page.goto(new URL("/settings/profile", productionUrl).href);
      expect(response?.status()).toBe(200);
      await viewOf(page, "Profile settings");
      await page.screenshot({ path: join(SHOTS, "spa-deep-link.png") });
    } finally {
      await page.close();
    }
  });

  it("browser: a route reached with pushState survives a reload", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(productionUrl);
      await viewOf(page, "Home page");
      await page.click("#to-profile");
      await viewOf(page, "Profile settings");
      expect(new URL(page.url()).pathname).toBe("/settings/profile");
      const reloaded = await page.reload();
      expect(reloaded?.status()).toBe(200);
      await viewOf(page, "Profile settings");
    } finally {
      await page.close();
    }
  });

  it("browser: a _redirects rule is followed to the right page (301, then the route)", async () => {
    const page = await browser.newPage();
    try {
      const response = await page.goto(new URL("/old-profile", productionUrl).href);
      expect(response?.status()).toBe(200);
      expect(response?.request().redirectedFrom()?.url()).toBe(new URL("/old-profile", productionUrl).href);
      expect(new URL(page.url()).pathname).toBe("/settings/profile");
      await viewOf(page, "Profile settings");
    } finally {
      await page.close();
    }
  });

  it("browser: a missing script on a deep link is a 404, not the app's HTML", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(new URL("/settings/profile", productionUrl).href);
      const missing = await page.evaluate<number>('fetch("/js/missing.js").then((r) => r.status)');
      expect(missing).toBe(404);
    } finally {
      await page.close();
    }
  });
});
