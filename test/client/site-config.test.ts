import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { edgeGet, runInProcess, startTestBed, storedProjects, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

describe("deploy: _redirects and _headers checked by the client", () => {
  it("deploy: a _redirects line that does not parse stops the deploy with file:line, exit 1, nothing created", async () => {
    await writeSite(join(bed.dir, "bad-redirects"), {
      "index.html": "home",
      _redirects: "# moved\n/old /new 404\n",
    });
    const before = await storedProjects(bed.configDir);
    const run = await runInProcess(["./bad-redirects"], bed.env, bed.dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      'bad-redirects/_redirects:2: status "404" is not one of 301, 302, 303, 307, 308, 200',
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await storedProjects(bed.configDir)).toEqual(before);
  });

  it("deploy: a _headers line that does not parse stops the deploy with file:line, exit 1, nothing created", async () => {
    const site = join(bed.dir, "bad-headers");
    await writeSite(site, { "index.html": "home", _headers: "/*\nX-Frame-Options: DENY\n" });
    const before = await storedProjects(bed.configDir);
    // Run from a folder the site is not under: the file is named by its absolute path.
    const run = await runInProcess([site], bed.env, join(bed.dir, "data"));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${site}/_headers:2: "X-Frame-Options: DENY" must be a path starting with /; header lines must be indented`,
    );
    expect(run.stderr).toContain(
      'Fix _headers and deploy again (syntax: the README\'s "Site configuration").',
    );
    expect(await storedProjects(bed.configDir)).toEqual(before);
  });

  it("deploy: every wrong line of both rules files is named in one run, exit 1, nothing created", async () => {
    await writeSite(join(bed.dir, "many-bad"), {
      "index.html": "home",
      _redirects: "/a /b 404\n/ok /fine\n/c\n",
      _headers: "/*\n  ETag: x\n",
    });
    const before = await storedProjects(bed.configDir);
    const run = await runInProcess(["./many-bad"], bed.env, bed.dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("3 lines of the site's rules are wrong:");
    expect(run.stderr).toContain('many-bad/_redirects:1: status "404" is not one of');
    expect(run.stderr).toContain('many-bad/_redirects:3: expected "from to [status]", got 1 field');
    expect(run.stderr).toContain("many-bad/_headers:2: ETag is set by the edge itself");
    expect(run.stderr).toContain("Fix _redirects and _headers and deploy again");
    expect(await storedProjects(bed.configDir)).toEqual(before);
  });

  it("deploy: on the built-in platform a 200 rule over files is not warned of (it rewrites only where no file answers)", async () => {
    const site = join(bed.dir, "app-rewrite");
    await writeSite(site, {
      "index.html": "home",
      "app/index.html": "app",
      "app/main.js": "main()",
      _redirects: "/app/* /app/index.html 200\n",
    });
    const run = await runInProcess([site], bed.env);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("warning");
  });

  it("deploy --help: says the rules files are checked before anything is uploaded", async () => {
    const run = await runInProcess(["--help"], bed.env, bed.dir);
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/\s+/g, " ")).toContain(
      "A _redirects and a _headers at the folder's root (Netlify's and Cloudflare Pages' syntax;",
    );
  });

  it("deploy: rules files below the root are ordinary files, not checked", async () => {
    await writeSite(join(bed.dir, "nested"), { "index.html": "home", "docs/_redirects": "not a rule" });
    const run = await runInProcess(["./nested", "--json"], bed.env, bed.dir);
    expect(run.code).toBe(0);
  });

  it("deploy: a site with valid _redirects and _headers goes live and the edge follows them", async () => {
    await writeSite(join(bed.dir, "good"), {
      "index.html": "home",
      "guide.html": "guide",
      _redirects: "/start /guide 302\n",
      _headers: "/guide\n  X-Frame-Options: DENY\n",
    });
    const run = await runInProcess(["./good", "--json"], bed.env, bed.dir);
    expect(run.code).toBe(0);
    const { productionUrl } = JSON.parse(run.stdout);
    const moved = await edgeGet(bed.server.urls.edge, productionUrl, "start");
    expect([moved.status, moved.headers.location]).toEqual([302, "/guide"]);
    const guide = await edgeGet(bed.server.urls.edge, productionUrl, "guide");
    expect([guide.body.toString(), guide.headers["x-frame-options"]]).toEqual(["guide", "DENY"]);
  });
});
