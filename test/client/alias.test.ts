import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../support/http.js";
import { createTestProject, identity } from "../support/deploy-flow.js";
import { edgeGet, runInProcess, startTestBed, writeSite, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(async () => {
  bed = await startTestBed();
});
afterAll(async () => {
  await bed?.stop();
});

/** Runs the client with --json and parses stdout; the run must succeed. */
async function json<T = any>(argv: string[]): Promise<T> {
  const run = await runInProcess([...argv, "--json"], bed.env);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

const get = (url: string) => edgeGet(bed.server.urls.edge, url, "index.html");
const page = async (url: string) => (await get(url)).body.toString();

describe("deploy --alias", () => {
  it("deploy --alias: the alias host serves the aliased preview, moves with the next deploy of that alias, production stays", async () => {
    const dir = join(bed.dir, "alias-site");
    await writeSite(dir, { "index.html": "production" });
    const live = await json([dir]);

    await writeSite(dir, { "index.html": "staging one" });
    const one = await json([dir, "--alias", "staging"]);
    expect(one.preview).toBe(true);
    expect(one.alias).toBe("staging");
    const slug = live.projectSlug as string;
    expect(one.aliasUrl).toMatch(new RegExp(`^http://staging--${slug}\\.localhost:\\d+/$`));
    expect(await page(one.aliasUrl)).toBe("staging one");
    const headers = (await get(one.aliasUrl)).headers;
    expect(headers["x-robots-tag"]).toBe("noindex");
    expect(headers["cache-control"]).not.toContain("immutable");
    expect(await page(live.productionUrl)).toBe("production");

    await writeSite(dir, { "index.html": "staging two" });
    const text = await runInProcess([dir, "--alias", "staging"], bed.env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Alias:      ${one.aliasUrl}`);
    expect(await page(one.aliasUrl)).toBe("staging two");
    expect(await page(one.revisionUrl)).toBe("staging one");
    expect(await page(live.productionUrl)).toBe("production");

    const listed = await json(["list", "--dir", dir]);
    expect(listed.revisions.map((r: any) => r.preview)).toEqual([true, true, false]);
  });

  it("GET /tls/ask: 200 for a live project's alias host, 404 for an alias it does not have", async () => {
    const dir = join(bed.dir, "alias-tls");
    await writeSite(dir, { "index.html": "tls" });
    const deployed = await json([dir, "--alias", "review"]);
    const ask = async (host: string) => (await fetch(`${bed.server.urls.api}/tls/ask?domain=${host}`)).status;
    expect(await ask(`review--${deployed.projectSlug}.localhost`)).toBe(200);
    expect(await ask(`${deployed.revisionId}--${deployed.projectSlug}.localhost`)).toBe(200);
    expect(await ask(`nothing--${deployed.projectSlug}.localhost`)).toBe(404);
    expect(await ask(`review--no-such-project.localhost`)).toBe(404);
  });

  it("deploy --alias: a name shaped like a revision id, or not a DNS label, is a usage error; nothing deployed", async () => {
    const dir = join(bed.dir, "alias-bad");
    await writeSite(dir, { "index.html": "x" });
    for (const alias of ["abcde12345", "-x", "a--b", "UPPER", "x".repeat(21)]) {
      const run = await runInProcess([dir, "--alias", alias], bed.env);
      expect(run.code, alias).toBe(2);
      expect(run.stderr).toContain("--alias");
    }
    const status = await runInProcess(["status", "--dir", dir], bed.env);
    expect(status.stderr).toContain("no project for");
  });
});

describe("deploy route: alias", () => {
  it("deploy route: an alias shaped like a revision id, or not a label, is 400 INVALID_REQUEST naming alias", async () => {
    const p = await createTestProject(bed.server.urls.api!, "alias-api");
    for (const alias of ["abcde12345", "a--b", "", "Ü", 7]) {
      const res = await api(bed.server.urls.api!, "POST", `/projects/${p.slug}/deploy`, {
        token: p.token,
        body: { ...identity(p), deployId: "d".repeat(20), completionJwt: "x", alias },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_REQUEST");
      expect(res.body.error.message).toMatch(/^alias/);
    }
  });
});
