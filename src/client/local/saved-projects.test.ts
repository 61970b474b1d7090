import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sha256Hex } from "../../core/ids.js";
import { SavedProjects, type SavedProject } from "./saved-projects.js";

let config: string;
beforeEach(async () => {
  config = join(await realpath(await mkdtemp(join(tmpdir(), "saved-projects-"))), "config");
});
afterEach(async () => {
  await rm(join(config, ".."), { recursive: true, force: true });
});

const projectOf = (n: number, apiUrl = "http://api"): SavedProject => ({
  projectSlug: `site-number-${n}`,
  apiToken: `sdp_token_${n}`,
  apiUrl,
  dir: `/sites/${n}`,
  productionUrl: `http://site-number-${n}.localhost/`,
  createdAt: "2030-01-01T00:00:00.000Z",
});
const hashOf = (n: number) => n.toString(16).padStart(64, "0");
const slugOf = (n: number) => `site-number-${n}`;
const held = (n: number, apiUrl = "http://api") => ({
  projectHash: hashOf(n),
  project: projectOf(n, apiUrl),
});

describe("SavedProjects", () => {
  it("SavedProjects: saved projects are keyed by API URL and project, keep their projectHash, and can be forgotten", async () => {
    const projects = new SavedProjects(config);
    await projects.put(hashOf(1), projectOf(1, "http://one"));
    expect(await projects.findBySlug("http://one", slugOf(1))).toEqual(held(1, "http://one"));
    expect(await projects.findBySlug("http://two", slugOf(1))).toBeUndefined();
    expect(await projects.findBySlug("http://one", slugOf(2))).toBeUndefined();
    expect(await projects.findByDir("http://one", "/sites/1")).toEqual(held(1, "http://one"));
    expect(await projects.list()).toEqual([held(1, "http://one")]);
    await projects.remove("http://one", slugOf(1));
    expect(await projects.findBySlug("http://one", slugOf(1))).toBeUndefined();
    await projects.remove("http://one", slugOf(1));
  });

  it("SavedProjects: an earlier version's file, keyed by the folder, is found by folder and name and replaced on write", async () => {
    const folder = join(config, "projects");
    await mkdir(folder, { recursive: true });
    const legacy = join(folder, `${sha256Hex(`http://api ${hashOf(1)}`)}.json`);
    await writeFile(legacy, JSON.stringify({ version: 1, projectHash: hashOf(1), record: projectOf(1) }));
    const projects = new SavedProjects(config);
    expect(await projects.findByDir("http://api", "/sites/1")).toEqual(held(1));
    expect(await projects.findBySlug("http://api", slugOf(1))).toEqual(held(1));
    await projects.put(hashOf(1), { ...projectOf(1), dir: "/moved" });
    await expect(stat(legacy)).rejects.toThrow(/ENOENT/);
    expect(await projects.list()).toEqual([
      { projectHash: hashOf(1), project: { ...projectOf(1), dir: "/moved" } },
    ]);
    expect(await projects.findByDir("http://api", "/sites/1")).toBeUndefined();
  });

  it("SavedProjects: many concurrent writes of different projects all survive", async () => {
    // Each write through its own SavedProjects, as separate `deploy` runs would do.
    const count = 40;
    const numbers = Array.from({ length: count }, (_, n) => n);
    await Promise.all(numbers.map((n) => new SavedProjects(config).put(hashOf(n), projectOf(n))));
    const projects = new SavedProjects(config);
    for (const n of numbers) expect(await projects.findBySlug("http://api", slugOf(n))).toEqual(held(n));
  });

  it("SavedProjects: each saved project is its own 0600 file in a 0700 folder, no temporary file left", async () => {
    await new SavedProjects(config).put(hashOf(1), projectOf(1));
    await new SavedProjects(config).put(hashOf(2), projectOf(2));
    const folder = join(config, "projects");
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    const names = await readdir(folder);
    expect(names).toHaveLength(2);
    for (const name of names) {
      expect(name).toMatch(/^[0-9a-f]{64}\.json$/);
      expect((await stat(join(folder, name))).mode & 0o777).toBe(0o600);
    }
  });

  it("SavedProjects: an old projects.json is moved to one file per project, keeping newer files", async () => {
    const newer = { ...projectOf(2), apiToken: "sdp_newer" };
    await new SavedProjects(config).put(hashOf(2), newer);
    const legacy = {
      version: 1,
      projects: {
        [`http://api ${hashOf(1)}`]: projectOf(1),
        [`http://api ${hashOf(2)}`]: projectOf(2),
      },
    };
    await writeFile(join(config, "projects.json"), JSON.stringify(legacy), { mode: 0o600 });
    const projects = new SavedProjects(config);
    expect(await projects.findBySlug("http://api", slugOf(1))).toEqual(held(1));
    expect(await projects.findBySlug("http://api", slugOf(2))).toEqual({
      projectHash: hashOf(2),
      project: newer,
    });
    await expect(stat(join(config, "projects.json"))).rejects.toThrow(/ENOENT/);
    expect(await new SavedProjects(config).findBySlug("http://api", slugOf(1))).toEqual(held(1));
    expect(await new SavedProjects(config).list()).toHaveLength(2);
  });

  it("SavedProjects: a projects.json that does not parse is named and left as it is", async () => {
    await new SavedProjects(config).put(hashOf(1), projectOf(1));
    const path = join(config, "projects.json");
    await writeFile(path, '{"version":1,"projects":{', { mode: 0o600 });
    const projects = new SavedProjects(config);
    await expect(projects.findBySlug("http://api", slugOf(1))).rejects.toThrow(`${path} is not valid JSON`);
    await expect(projects.put(hashOf(2), projectOf(2))).rejects.toThrow(path);
    expect(await readFile(path, "utf8")).toBe('{"version":1,"projects":{');
  });

  it("SavedProjects: a saved project file that does not parse is named and left as it is", async () => {
    await new SavedProjects(config).put(hashOf(1), projectOf(1));
    const [name] = await readdir(join(config, "projects"));
    const path = join(config, "projects", name!);
    await writeFile(path, "garbage");
    await expect(new SavedProjects(config).findBySlug("http://api", slugOf(1))).rejects.toThrow(
      `${path} is not valid JSON`,
    );
    await expect(new SavedProjects(config).put(hashOf(1), projectOf(1))).rejects.toThrow(path);
    expect(await readFile(path, "utf8")).toBe("garbage");
  });
  it("SavedProjects: list is sorted by API URL, then project; files of other names are not records", async () => {
    const projects = new SavedProjects(config);
    await projects.put(hashOf(3), projectOf(3, "http://b"));
    await projects.put(hashOf(2), projectOf(2, "http://a"));
    await projects.put(hashOf(1), projectOf(1, "http://b"));
    await writeFile(
      join(config, "projects", "notes.json"),
      JSON.stringify({ version: 1, projectHash: hashOf(9), record: projectOf(9) }),
    );
    await writeFile(join(config, "projects", `${hashOf(8)}.json.bak`), "{}");
    const listed = (await projects.list()).map(({ project }) => `${project.apiUrl} ${project.projectSlug}`);
    expect(listed).toEqual(["http://a site-number-2", "http://b site-number-1", "http://b site-number-3"]);
  });

  it("SavedProjects: findByDir gives the newest project made from the folder on that API", async () => {
    const projects = new SavedProjects(config);
    const older = { ...projectOf(1), dir: "/same", createdAt: "2030-01-01T00:00:00.000Z" };
    const newer = { ...projectOf(2), dir: "/same", createdAt: "2030-02-01T00:00:00.000Z" };
    const elsewhere = {
      ...projectOf(3, "http://other"),
      dir: "/same",
      createdAt: "2030-03-01T00:00:00.000Z",
    };
    await projects.put(hashOf(2), newer);
    await projects.put(hashOf(1), older);
    await projects.put(hashOf(3), elsewhere);
    expect(await projects.findByDir("http://api", "/same")).toEqual({
      projectHash: hashOf(2),
      project: newer,
    });
    expect(await projects.findByDir("http://api", "/nowhere")).toBeUndefined();
  });

  it("SavedProjects: a record file of another version, without its projectHash or with a field not text, is named as not a record", async () => {
    const projects = new SavedProjects(config);
    await projects.put(hashOf(1), projectOf(1));
    const [name] = await readdir(join(config, "projects"));
    const path = join(config, "projects", name!);
    const bad: unknown[] = [
      { version: 2, projectHash: hashOf(1), record: projectOf(1) },
      { version: 1, record: projectOf(1) },
      { version: 1, projectHash: hashOf(1), record: { ...projectOf(1), apiToken: 5 } },
      { version: 1, projectHash: hashOf(1), record: { ...projectOf(1), createdAt: undefined } },
      { version: 1, projectHash: hashOf(1), record: null },
      { version: 1, projectHash: hashOf(1), record: "text" },
      null,
    ];
    for (const data of bad) {
      await writeFile(path, JSON.stringify(data));
      await expect(projects.findBySlug("http://api", slugOf(1)), JSON.stringify(data)).rejects.toThrow(
        `${path} is not a project record`,
      );
      // Left out of the list, not fatal to it.
      expect(await projects.list()).toEqual([]);
    }
  });

  it("SavedProjects: a projects.json that is not a projects file, or holds a malformed record, is named and kept", async () => {
    const path = join(config, "projects.json");
    await mkdir(config, { recursive: true });
    const cases: Array<[unknown, string]> = [
      [{ version: 1 }, "is not a projects file"],
      [{ version: 1, projects: null }, "is not a projects file"],
      [{ version: 1, projects: "text" }, "is not a projects file"],
      [null, "is not a projects file"],
      [
        { version: 1, projects: { [`http://api ${hashOf(1)}`]: { ...projectOf(1), dir: 7 } } },
        `holds a malformed record under "http://api ${hashOf(1)}"`,
      ],
      [
        { version: 1, projects: { [`http://other ${hashOf(1)}`]: projectOf(1) } },
        `holds a malformed record under "http://other ${hashOf(1)}"`,
      ],
    ];
    for (const [data, problem] of cases) {
      await writeFile(path, JSON.stringify(data));
      await expect(new SavedProjects(config).list()).rejects.toThrow(`${path} ${problem}`);
      expect(JSON.parse(await readFile(path, "utf8"))).toEqual(data);
    }
  });
});
