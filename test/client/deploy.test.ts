import { readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { sha256Hex } from "../../src/core/ids.js";
import { runCli } from "../../src/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriesOf } from "../support/prometheus-text.js";
import {
  edgeGet,
  fixtureSite,
  runInProcess,
  startTestBed,
  storedProjects,
  writeSite,
  type TestBed,
} from "./helpers.js";

interface DeployJson {
  identical: number;
  preview: boolean;
  projectSlug: string;
  revisionId: string;
  productionUrl: string;
  revisionUrl: string;
  files: number;
  uploaded: number;
  bytesUploaded: number;
  durationMs: number;
  previousProjectSlug?: string;
  unchanged?: boolean;
}

/** The server's request counters, as "role METHOD route" → count, off its /metrics. */
async function requestsByRoute(): Promise<Map<string, number>> {
  const text = (await bed.server.metrics.render()).body;
  const counts = new Map<string, number>();
  for (const { labels, value } of seriesOf(text, "http_requests_total")) {
    const key = `${labels.role} ${labels.method} ${labels.route}`;
    counts.set(key, (counts.get(key) ?? 0) + value);
  }
  return counts;
}

let bed: TestBed;
let site: string;
const files = fixtureSite();
let first: DeployJson;

async function deployJson(dir: string): Promise<DeployJson> {
  const run = await runInProcess([dir, "--json"], bed.env);
  expect(run.stderr).not.toContain("Error");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as DeployJson;
}

beforeAll(async () => {
  bed = await startTestBed();
  site = join(bed.dir, "site");
  await writeSite(site, files);
  // Written an hour ago, as a site is: a file written within the hash cache's racy window of the
  // first deploy is not cached, and a test that runs first would find nothing "unchanged".
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const path of Object.keys(files)) await utimes(join(site, path), hourAgo, hourAgo);
  first = await deployJson(site);
});
afterAll(async () => {
  await bed?.stop();
});

describe("deploy end to end", () => {
  it("deploy: --json prints one object with the issue's fields", () => {
    expect(Object.keys(first).sort()).toEqual(
      [
        "bytesUploaded",
        "durationMs",
        "expiresAt",
        "files",
        "identical",
        "preview",
        "productionUrl",
        "projectSlug",
        "revisionId",
        "revisionUrl",
        "uploaded",
      ].sort(),
    );
    expect(first.files).toBe(Object.keys(files).length);
    // three copies of one content travel once, and are counted as identical
    expect(first.uploaded).toBe(Object.keys(files).length - 2);
    expect(first.identical).toBe(2);
    expect(first.preview).toBe(false);
    const total = Object.values(files).reduce((sum, content) => sum + Buffer.byteLength(content), 0);
    expect(first.bytesUploaded).toBe(total - 2 * Buffer.byteLength("the same contents"));
    expect(first.productionUrl).toMatch(new RegExp(`^http://${first.projectSlug}\\.localhost:\\d+/$`));
    expect(first.revisionUrl).toMatch(
      new RegExp(`^http://${first.revisionId}--${first.projectSlug}\\.localhost:\\d+/$`),
    );
  });

  it("deploy: every file is served by the edge byte for byte, on both URLs", async () => {
    for (const url of [first.productionUrl, first.revisionUrl]) {
      for (const [path, content] of Object.entries(files)) {
        const response = await edgeGet(bed.server.urls.edge, url, path);
        expect(response.status, path).toBe(200);
        expect(response.body.equals(Buffer.from(content)), path).toBe(true);
      }
    }
    const home = await edgeGet(bed.server.urls.edge, first.productionUrl, "");
    expect(home.body.toString()).toContain("<h1>Hello</h1>");
    expect(home.headers["content-type"]).toContain("text/html");
    expect(
      (await edgeGet(bed.server.urls.edge, first.productionUrl, "css/site.css")).headers["content-type"],
    ).toContain("text/css");
  });

  it("deploy: the token is kept in the config folder (0600); the site gets only a project file without it", async () => {
    // Other tests of this file deploy other folders into the same config folder, in any order.
    const saved = Object.values(await storedProjects(bed.configDir)).find(
      (p) => p.projectSlug === first.projectSlug,
    );
    expect(saved?.apiToken).toMatch(/^sdp_/);
    const { stat, readdir } = await import("node:fs/promises");
    for (const name of Object.keys(await storedProjects(bed.configDir))) {
      expect((await stat(join(bed.configDir, "projects", name))).mode & 0o777).toBe(0o600);
    }
    expect((await readdir(site)).sort()).toEqual(
      [".static-deploy.json", ...new Set(Object.keys(files).map((path) => path.split("/")[0]!))].sort(),
    );
    const projectFile = await readFile(join(site, ".static-deploy.json"), "utf8");
    expect(JSON.parse(projectFile)).toMatchObject({ project: first.projectSlug, dir: "." });
    expect(projectFile).not.toContain(saved!.apiToken);
  });

  it("deploy: an unchanged redeploy sends one prepare and nothing else, and names production's revision", async () => {
    const before = await requestsByRoute();
    const again = await deployJson(site);
    const after = await requestsByRoute();
    const sent = [...after].filter(([route, count]) => count !== (before.get(route) ?? 0));
    expect(sent).toEqual([
      [
        "api POST /projects/:projectSlug/prepare",
        (before.get("api POST /projects/:projectSlug/prepare") ?? 0) + 1,
      ],
    ]);
    expect(again.unchanged).toBe(true);
    expect(again.projectSlug).toBe(first.projectSlug);
    expect(again.uploaded).toBe(0);
    expect(again.bytesUploaded).toBe(0);
    const state = await runInProcess(["status", "--dir", site, "--json"], bed.env);
    expect(JSON.parse(state.stdout).revisionId).toBe(again.revisionId);
  });

  it("deploy --preview: an unchanged folder still gets a revision of its own", async () => {
    const run = await runInProcess([site, "--preview", "--json"], bed.env);
    expect(run.code).toBe(0);
    const preview = JSON.parse(run.stdout) as DeployJson;
    expect(preview.unchanged).toBeUndefined();
    expect(preview.preview).toBe(true);
    const served = await edgeGet(bed.server.urls.edge, preview.revisionUrl, "css/site.css");
    expect(served.body.toString()).toBe(files["css/site.css"]);
  });

  it("deploy: a redeploy after one change uploads exactly that asset; the old revision still serves", async () => {
    await writeFile(join(site, "css/site.css"), "h1 { color: teal; }");
    const changed = await deployJson(site);
    expect(changed.uploaded).toBe(1);
    expect(changed.bytesUploaded).toBe(Buffer.byteLength("h1 { color: teal; }"));
    const now = await edgeGet(bed.server.urls.edge, changed.productionUrl, "css/site.css");
    expect(now.body.toString()).toBe("h1 { color: teal; }");
    const old = await edgeGet(bed.server.urls.edge, first.revisionUrl, "css/site.css");
    expect(old.body.toString()).toBe(files["css/site.css"]);
    // Put production back as the other tests of this file (in any order) expect it.
    await writeFile(join(site, "css/site.css"), files["css/site.css"]!);
    expect((await deployJson(site)).uploaded).toBe(0);
  });

  it("deploy: the human report names both URLs and the figures", async () => {
    const run = await runInProcess([site], bed.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Production: ${first.productionUrl}`);
    expect(run.stdout).toMatch(/Revision: +http:\/\/[a-z0-9]{10}--/);
    expect(run.stdout).toMatch(
      /Files: +12 total: 0 uploaded, 2 identical to another file, 10 already on the server/,
    );
    expect(run.stdout).toMatch(/Sent: +0 B/);
    expect(run.stdout).toMatch(/Time: +\d/);
    expect(run.stderr).toMatch(/unchanged since the last deploy/);
  });

  it("domain: assigns a hostname the edge then serves, and --reset goes back", async () => {
    const assign = await runInProcess(["domain", "www.example.com", "--dir", site, "--json"], bed.env);
    expect(assign.code).toBe(0);
    const result = JSON.parse(assign.stdout) as {
      domain: { hostname: string; cnameTarget: string };
      project: { productionUrl: string };
    };
    expect(result.domain).toMatchObject({ hostname: "www.example.com", cnameTarget: "edge.localhost" });
    const custom = await edgeGet(bed.server.urls.edge, result.project.productionUrl, "");
    expect(custom.status).toBe(200);
    expect(new URL(result.project.productionUrl).hostname).toBe("www.example.com");

    const human = await runInProcess(["domain", "www.example.com", "--dir", site], bed.env);
    expect(human.stdout).toContain("CNAME record for www.example.com at edge.localhost");
    expect(human.stdout).toContain(
      `Also at:    ${first.productionUrl} (the generated address keeps serving)`,
    );
    expect((await edgeGet(bed.server.urls.edge, first.productionUrl, "")).status).toBe(200);

    const reset = await runInProcess(["domain", "--reset", "--dir", site, "--json"], bed.env);
    expect(reset.code).toBe(0);
    expect((JSON.parse(reset.stdout) as { project: { productionUrl: string } }).project.productionUrl).toBe(
      first.productionUrl,
    );
    expect((await edgeGet(bed.server.urls.edge, "http://www.example.com/", "")).status).toBe(404);
  });

  it("delete: --yes deletes the project, the site stops answering, the token is forgotten", async () => {
    const other = join(bed.dir, "to-delete");
    await writeSite(other, { "index.html": "bye" });
    const deployed = await deployJson(other);
    const run = await runInProcess(["delete", "--dir", other, "--yes", "--json"], bed.env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ projectSlug: deployed.projectSlug, deleted: true });
    expect((await edgeGet(bed.server.urls.edge, deployed.productionUrl, "")).status).toBe(404);
    const slugs = Object.values(await storedProjects(bed.configDir)).map((p) => p.projectSlug);
    expect(slugs).not.toContain(deployed.projectSlug);
    const again = await runInProcess(["delete", "--dir", other, "--yes"], bed.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("no project for");
  });

  it("delete: on a terminal it asks first, and anything but yes keeps the project and exits 0, no error", async () => {
    const other = join(bed.dir, "asked");
    await writeSite(other, { "index.html": "still here" });
    const deployed = await deployJson(other);
    const answer = async (text: string) => {
      const stdin = Object.assign(new PassThrough(), { isTTY: true });
      let stderr = "";
      let stdout = "";
      // Answered once the question is asked, as a person would.
      const ask = (chunk: string) => {
        stderr += chunk;
        if (chunk.includes("Delete project")) stdin.write(text);
      };
      const pending = runCli(["delete", "--dir", other], {
        stdin,
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: ask, isTTY: true },
        env: bed.env,
        cwd: "/",
      });
      return { code: await pending, stdout, stderr };
    };
    const kept = await answer("n\n");
    expect(kept.code).toBe(0);
    expect(kept.stderr).toContain(`Delete project ${deployed.projectSlug}`);
    expect(kept.stderr).toContain("Deletion cancelled; nothing was changed.");
    expect(kept.stderr).not.toContain("Error");
    expect(kept.stdout).toBe("");
    expect((await edgeGet(bed.server.urls.edge, deployed.productionUrl, "")).status).toBe(200);
    const gone = await answer("yes\n");
    expect(gone.code).toBe(0);
    expect(gone.stdout).toContain(`Deleted project ${deployed.projectSlug}`);
    expect((await edgeGet(bed.server.urls.edge, deployed.productionUrl, "")).status).toBe(404);
  });

  it("deploy: a project deleted behind the client's back is replaced, and the URL change is said", async () => {
    const other = join(bed.dir, "replaced");
    await writeSite(other, { "index.html": "v1" });
    const before = await deployJson(other);
    const token = Object.values(await storedProjects(bed.configDir)).find(
      (p) => p.projectSlug === before.projectSlug,
    )!.apiToken;
    const { projectHash, anonFingerprint } = await identityOf(other);
    const deleted = await fetch(`${bed.server.urls.api}/projects/${before.projectSlug}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ projectHash, anonFingerprint }),
    });
    expect(deleted.status).toBe(200);
    const run = await runInProcess([other, "--json"], bed.env);
    expect(run.code).toBe(0);
    const after = JSON.parse(run.stdout) as DeployJson;
    expect(after.projectSlug).not.toBe(before.projectSlug);
    expect(after.previousProjectSlug).toBe(before.projectSlug);
    expect(run.stderr).toContain(`The site's URL changed: it is now ${after.productionUrl}`);
    expect((await edgeGet(bed.server.urls.edge, after.productionUrl, "")).body.toString()).toBe("v1");
  });
});

async function identityOf(dir: string): Promise<{ projectHash: string; anonFingerprint: string }> {
  const install = JSON.parse(await readFile(join(bed.configDir, "install.json"), "utf8")) as {
    installId: string;
  };
  return { projectHash: sha256Hex(dir), anonFingerprint: sha256Hex(install.installId) };
}
