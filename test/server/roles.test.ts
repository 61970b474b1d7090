import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createTestProject, manifestOf, identity } from "../support/deploy-flow.js";
import { api, edgeGet } from "../support/http.js";
import { SERVER_ENTRY, type RoleUrls, type ServerProcess, spawnProcess } from "../support/server-process.js";
import { tempDir } from "../support/server.js";

describe("deploy-server with ROLES", () => {
  const running: ServerProcess<RoleUrls>[] = [];
  const dirs: { cleanup(): void }[] = [];
  const start = async (env: Record<string, string>) => {
    const dir = tempDir();
    dirs.push(dir);
    const server = await spawnProcess(dir.path, env);
    running.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
    for (const dir of dirs.splice(0)) dir.cleanup();
  });

  it("ROLES=edge: only the edge and the operator listener run; the edge answers, /healthz too", async () => {
    const server = await start({ ROLES: "edge" });
    expect(server.urls.api).toBeUndefined();
    expect(server.urls.upload).toBeUndefined();
    expect(server.output()).not.toMatch(/^(api|upload)\s+listening/m);
    expect((await edgeGet(server.urls.edge!, "nobody.localhost", "/")).status).toBe(404);
    const health = await fetch(`${server.urls.ops}/healthz`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`${server.urls.ops}/metrics`)).text();
    expect(metrics).toContain('process_roles="edge"');
  });

  it("ROLES=api: prepare names the upload service's public URL and sites on PUBLIC_EDGE_PORT", async () => {
    const server = await start({
      ROLES: "api",
      UPLOAD_PUBLIC_URL: "https://upload.example.test",
      PUBLIC_EDGE_PORT: "443",
      PUBLIC_SCHEME: "https",
    });
    expect(server.urls.upload).toBeUndefined();
    expect(server.urls.edge).toBeUndefined();
    const project = await createTestProject(server.urls.api!, "api-only");
    expect(project.project.productionUrl).toBe(`https://${project.slug}.localhost/`);
    const { manifest } = await manifestOf(project.slug, { "/index.html": "<h1>split</h1>" });
    const prepared = await api(server.urls.api!, "POST", `/projects/${project.slug}/prepare`, {
      token: project.token,
      body: { ...identity(project), manifest },
    });
    expect(prepared.status).toBe(200);
    expect(prepared.body.urls.upload).toMatch(
      /^https:\/\/upload\.example\.test\/accounts\/[0-9a-f]+\/workers\/assets\/upload\?base64=true$/,
    );
  });

  it("deploy-server: a malformed ROLES stops the start with one line naming it, exit 2", () => {
    const result = spawnSync(process.execPath, [SERVER_ENTRY], {
      env: { PATH: process.env.PATH ?? "", ROLES: "api,cdn", DATA_DIR: "/nonexistent" },
      encoding: "utf8",
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(
      'deploy-server: invalid configuration: ROLES: unknown role "cdn": the roles are api, upload and edge',
    );
  });
});
