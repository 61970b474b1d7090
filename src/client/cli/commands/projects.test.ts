import { access } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { anonFingerprint } from "../../local/identity.js";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { stateAnswer } from "../test-fixtures.js";
import { savedProject, type Scratch, useScratchRoot } from "./test-project.js";

const api = useTestApi();
/** Another API, which holds one project of this machine too. */
const other = useTestApi();
const root = useScratchRoot("projects-command-");

beforeEach(() => {
  // Whether a project has expired is judged on the clock.
  vi.useFakeTimers({ toFake: ["Date"], now: new Date(NOW) });
});
afterEach(() => {
  vi.useRealTimers();
});

const NOW = "2026-11-28T10:00:00.000Z";

/** Three projects held for the stand-in API (one active, one expired this very moment, one gone) and one held for another API. */
async function holdThree(folder: Scratch) {
  const saved = folder.saved;
  const held = [
    {
      slug: "amber-field-aaa11",
      hash: "1".repeat(64),
      dir: folder.site,
      expiresAt: "2026-12-20T09:00:00.000Z",
    },
    { slug: "birch-hill-bbb22", hash: "2".repeat(64), dir: "", expiresAt: NOW },
    {
      slug: "cedar-lake-ccc33",
      hash: "3".repeat(64),
      dir: join(root.path, "gone-site"),
      expiresAt: undefined,
    },
  ];
  for (const { slug, hash, dir, expiresAt } of held) {
    await saved.put(hash, savedProject(api.url, { projectSlug: slug, apiToken: `sdp_${hash[0]}`, dir }));
    api.on(
      `POST /projects/${slug}/state`,
      expiresAt === undefined
        ? apiError(404, "PROJECT_NOT_FOUND")
        : {
            status: 200,
            body: stateAnswer([], {
              projectSlug: slug,
              expiresAt,
              productionUrl: `https://${slug}.example.org/`,
            }),
          },
    );
  }
  await saved.put("4".repeat(64), savedProject(other.url, { projectSlug: "far-away-ddd44" }));
  return { fingerprint: await anonFingerprint(folder.config) };
}

const run = (folder: Scratch, argv: string[] = []) =>
  runCliIn(folder.site, ["projects", ...argv], folder.env);

describe("projects", () => {
  it("projects: lists each project held for this API with its URL and expiry as the server tells them now, and its folder", async () => {
    const folder = await root.scratch(api.url);
    await holdThree(folder);
    expect(await run(folder)).toEqual({
      code: 0,
      stdout: [
        `3 projects on ${api.url}:`,
        "  amber-field-aaa11  https://amber-field-aaa11.example.org/  expires 2026-12-20",
        `    ${folder.site}`,
        "  birch-hill-bbb22  https://birch-hill-bbb22.example.org/  expired 2026-11-28",
        "    no folder linked",
        "  cedar-lake-ccc33  https://cedar-lake-ccc33.sites.test/  gone from the server",
        `    ${join(root.path, "gone-site")}`,
        "(and 1 on other APIs: --api-url names one)",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("projects: asks each project's state with its own token and the identity it was created with", async () => {
    const folder = await root.scratch(api.url);
    const { fingerprint } = await holdThree(folder);
    await run(folder);
    const asked = api.received
      .map(({ method, path, headers, body }) => [method, path, headers.authorization, body])
      .sort((a, b) => String(a[1]).localeCompare(String(b[1])));
    expect(asked).toEqual(
      ["amber-field-aaa11", "birch-hill-bbb22", "cedar-lake-ccc33"].map((slug, i) => [
        "POST",
        `/projects/${slug}/state`,
        `Bearer sdp_${i + 1}`,
        { projectHash: String(i + 1).repeat(64), anonFingerprint: fingerprint },
      ]),
    );
  });

  it("projects: --json prints { apiUrl, projects, otherApis }, a gone project with its saved URL and no expiry", async () => {
    const folder = await root.scratch(api.url);
    await holdThree(folder);
    const { code, stdout, stderr } = await run(folder, ["--json"]);
    expect([code, stderr]).toEqual([0, ""]);
    expect(stdout).toBe(
      `${JSON.stringify({
        apiUrl: api.url,
        projects: [
          {
            projectSlug: "amber-field-aaa11",
            dir: folder.site,
            productionUrl: "https://amber-field-aaa11.example.org/",
            expiresAt: "2026-12-20T09:00:00.000Z",
            expired: false,
            status: "active",
          },
          {
            projectSlug: "birch-hill-bbb22",
            dir: "",
            productionUrl: "https://birch-hill-bbb22.example.org/",
            expiresAt: NOW,
            expired: true,
            status: "expired",
          },
          {
            projectSlug: "cedar-lake-ccc33",
            dir: join(root.path, "gone-site"),
            productionUrl: "https://cedar-lake-ccc33.sites.test/",
            expiresAt: null,
            expired: true,
            status: "gone",
          },
        ],
        otherApis: 1,
      })}\n`,
    );
  });

  it("projects: one project held is said in the singular, with no line about other APIs when there are none", async () => {
    const folder = await root.scratch(api.url);
    await folder.saved.put("1".repeat(64), savedProject(api.url, { dir: folder.site }));
    api.on("POST /projects/calm-river-abc12/state", { status: 200, body: stateAnswer([]) });
    expect((await run(folder)).stdout).toBe(
      [
        `1 project on ${api.url}:`,
        "  calm-river-abc12  https://calm-river-abc12.sites.test/  expires 2026-12-20",
        `    ${folder.site}`,
        "",
      ].join("\n"),
    );
  });

  it("projects: a project on a server that keeps projects forever never expires, not on 9999-12-31", async () => {
    const folder = await root.scratch(api.url);
    await folder.saved.put("1".repeat(64), savedProject(api.url, { dir: folder.site }));
    const forever = "9999-12-31T23:59:59.999Z";
    api.on("POST /projects/calm-river-abc12/state", {
      status: 200,
      body: stateAnswer([], { expiresAt: forever }),
    });
    expect((await run(folder)).stdout.split("\n")[1]).toBe(
      "  calm-river-abc12  https://calm-river-abc12.sites.test/  never expires",
    );
    expect(JSON.parse((await run(folder, ["--json"])).stdout).projects[0]).toMatchObject({
      expiresAt: forever,
      expired: false,
      status: "active",
    });
  });

  it("projects: with none held for this API, says how to make one, asks nothing and makes no install id", async () => {
    const folder = await root.scratch(api.url);
    expect(await run(folder)).toEqual({
      code: 0,
      stdout: `No project on ${api.url} is held here: \`deploy <dir>\` creates one.\n`,
      stderr: "",
    });
    await folder.saved.put("4".repeat(64), savedProject(other.url));
    expect((await run(folder)).stdout).toBe(
      `No project on ${api.url} is held here: \`deploy <dir>\` creates one.\n` +
        "(and 1 on other APIs: --api-url names one)\n",
    );
    expect(JSON.parse((await run(folder, ["--json"])).stdout)).toEqual({
      apiUrl: api.url,
      projects: [],
      otherApis: 1,
    });
    expect(api.received).toEqual([]);
    await expect(access(join(folder.config, "install.json"))).rejects.toThrow();
  });

  it("projects: an API error other than the project being gone fails the command", async () => {
    const folder = await root.scratch(api.url);
    await holdThree(folder);
    api.on("POST /projects/birch-hill-bbb22/state", apiError(500, "INTERNAL", "the store failed"));
    const { code, stdout, stderr } = await run(folder, ["--json"]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.code).toBe("INTERNAL");
    expect(stderr).toMatch(
      /^Error: .*the store failed\nThe server failed; try again later, or ask its operator\.\n$/,
    );
  });

  it("projects: a request the server failed is tried again as the settings say, and the retry is said on stderr", async () => {
    const folder = await root.scratch(api.url);
    await folder.saved.put("1".repeat(64), savedProject(api.url, { dir: folder.site }));
    let calls = 0;
    api.on("POST /projects/calm-river-abc12/state", () =>
      ++calls === 1 ? apiError(503, "UNAVAILABLE", "starting") : { status: 200, body: stateAnswer([]) },
    );
    const env = { ...folder.env, DEPLOY_MAX_ATTEMPTS: "2", DEPLOY_RETRY_BASE_MS: "0" };
    const { code, stdout, stderr } = await runCliIn(folder.site, ["projects", "--json"], env);
    expect([code, JSON.parse(stdout).projects[0].status, calls]).toEqual([0, "active", 2]);
    expect(stderr).toMatch(/starting — retrying in 0ms \(attempt 2 of 2\)\n$/);
  });

  it("projects: --api-url names the API whose projects are listed", async () => {
    const folder = await root.scratch(api.url);
    await holdThree(folder);
    other.on("POST /projects/far-away-ddd44/state", apiError(403, "PROJECT_EXPIRED"));
    const { code, stdout } = await runCliIn(folder.site, ["projects", "--api-url", other.url, "--json"], {
      DEPLOY_CONFIG_DIR: folder.config,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      apiUrl: other.url,
      projects: [{ projectSlug: "far-away-ddd44", status: "gone" }],
      otherApis: 3,
    });
    expect([api.received, other.received.map(({ path }) => path)]).toEqual([
      [],
      ["/projects/far-away-ddd44/state"],
    ]);
  });
});
