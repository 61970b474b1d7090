import { beforeEach, describe, expect, it } from "vitest";
import type { DomainResult } from "../../net/api-types.js";
import { domainText, resetText } from "./output.js";
import { apiError, runCliIn, useTestApi } from "./test-api.js";
import { publicProject, SLUG } from "../test-fixtures.js";
import {
  credentialEnv,
  holdProject,
  lockSite,
  locksLeft,
  type Scratch,
  useScratchRoot,
} from "./test-project.js";

const HOST = "www.example.com";

/** The answer of an assigned external hostname, pending DNS (contract §3, §8). */
const PENDING: DomainResult = {
  domain: {
    hostname: HOST,
    cnameTarget: "edge.sites.test",
    status: "pending",
    records: [
      { type: "CNAME", name: HOST, value: "edge.sites.test" },
      { type: "TXT", name: `_deploy-challenge.${HOST}`, value: `deploy-challenge=${"0".repeat(32)}` },
    ],
    checkedAt: "2026-11-20T08:30:00.000Z",
    message: "no CNAME record yet",
    pendingUntil: "2026-11-27T08:30:00.000Z",
  },
  project: publicProject({
    hostname: HOST,
    customHostname: HOST,
    customHostnameStatus: "pending",
    productionUrl: `https://${HOST}/`,
  }),
};
const ACTIVE: DomainResult = {
  domain: { ...PENDING.domain, status: "active", message: "CNAME found", pendingUntil: null },
  project: { ...PENDING.project, customHostnameStatus: "active" },
};
const RESET = { project: publicProject() };

const api = useTestApi();
const root = useScratchRoot("domain-command-");
let scratch: Scratch;
beforeEach(async () => {
  scratch = await root.scratch(api.url);
  api.on(`POST /projects/${SLUG}/domains`, { status: 200, body: PENDING });
  api.on(`POST /projects/${SLUG}/domains/check`, { status: 200, body: ACTIVE });
  api.on(`DELETE /projects/${SLUG}/domains`, { status: 200, body: RESET });
});

/** Runs `deploy domain` in the site folder against the stand-in. */
function domain(args: string[], env: Record<string, string> = {}) {
  return runCliIn(scratch.site, ["domain", ...args], { ...scratch.env, ...env });
}

/** The production URL the config folder keeps for the project. */
async function savedUrl(): Promise<string | undefined> {
  return (await scratch.saved.findBySlug(api.url, SLUG))?.project.productionUrl;
}

/** The one request the stand-in received, as method, path, token and body. */
function sent() {
  expect(api.received).toHaveLength(1);
  const [request] = api.received;
  return [request?.method, request?.path, request?.headers.authorization, request?.body];
}

describe("domain", () => {
  it("domain: <hostname> asks the server to assign it, prints where the project answers and the DNS records", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await domain([HOST]);
    expect(run).toEqual({ code: 0, stdout: domainText(PENDING), stderr: "" });
    expect(run.stdout).toContain(`CNAME record for ${HOST} at edge.sites.test`);
    expect(sent()).toEqual([
      "POST",
      `/projects/${SLUG}/domains`,
      `Bearer ${held.project.apiToken}`,
      { ...held.identity, domain: HOST },
    ]);
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("domain: <hostname> saves the project's new production URL and keeps the rest of its record", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    await domain([HOST]);
    expect(await scratch.saved.findBySlug(api.url, SLUG)).toEqual({
      projectHash: held.identity.projectHash,
      project: { ...held.project, productionUrl: `https://${HOST}/` },
    });
  });

  it("domain: --json prints the server's answer as it is", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    expect(await domain([HOST, "--json"])).toEqual({
      code: 0,
      stdout: `${JSON.stringify(PENDING)}\n`,
      stderr: "",
    });
    expect(await savedUrl()).toBe(`https://${HOST}/`);
  });

  it("domain: --check asks the server to look at DNS now, prints the answer, and leaves the saved record", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    const run = await domain(["--check"]);
    expect(run).toEqual({ code: 0, stdout: domainText(ACTIVE), stderr: "" });
    expect(sent()).toEqual([
      "POST",
      `/projects/${SLUG}/domains/check`,
      `Bearer ${held.project.apiToken}`,
      held.identity,
    ]);
    expect(await savedUrl()).toBe(held.project.productionUrl);
    expect(await locksLeft(scratch)).toEqual([]);
    api.received.length = 0;
    expect((await domain(["--check", "--json"])).stdout).toBe(`${JSON.stringify(ACTIVE)}\n`);
  });

  it("domain: --reset goes back to the generated hostname, prints it, and saves that URL", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    await scratch.saved.put(held.identity.projectHash, {
      ...held.project,
      productionUrl: `https://${HOST}/`,
    });
    const run = await domain(["--reset"]);
    expect(run).toEqual({ code: 0, stdout: resetText(RESET.project), stderr: "" });
    expect(sent()).toEqual([
      "DELETE",
      `/projects/${SLUG}/domains`,
      `Bearer ${held.project.apiToken}`,
      held.identity,
    ]);
    expect(await scratch.saved.findBySlug(api.url, SLUG)).toEqual({
      projectHash: held.identity.projectHash,
      project: { ...held.project, productionUrl: `https://${SLUG}.sites.test/` },
    });
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("domain: --reset --json prints { project }", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    expect((await domain(["--reset", "--json"])).stdout).toBe(`${JSON.stringify(RESET)}\n`);
  });

  it("domain: a hostname another project holds is DOMAIN_TAKEN with its hint; nothing is saved and the lock is let go", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    api.on(
      `POST /projects/${SLUG}/domains`,
      apiError(409, "DOMAIN_TAKEN", `${HOST} is held by another project`),
    );
    const run = await domain([HOST]);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr: `Error: could not assign the domain: ${HOST} is held by another project\nAnother project holds this hostname; choose another.\n`,
    });
    expect(await savedUrl()).toBe(held.project.productionUrl);
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("domain: --check without a custom hostname is DOMAIN_NOT_ASSIGNED; --reset's failure saves nothing", async () => {
    const held = await holdProject(scratch, api.url, SLUG, { linked: true });
    api.on(`POST /projects/${SLUG}/domains/check`, apiError(404, "DOMAIN_NOT_ASSIGNED"));
    const check = await domain(["--check", "--json"]);
    expect(check.code).toBe(1);
    expect(JSON.parse(check.stdout).error.code).toBe("DOMAIN_NOT_ASSIGNED");
    api.on(`DELETE /projects/${SLUG}/domains`, apiError(410, "PROJECT_EXPIRED", "project expired"));
    expect((await domain(["--reset"])).code).toBe(1);
    expect(await savedUrl()).toBe(held.project.productionUrl);
    expect(await locksLeft(scratch)).toEqual([]);
  });

  it("domain: while another run holds the folder's lock it gives up LOCKED and sends nothing", async () => {
    await holdProject(scratch, api.url, SLUG, { linked: true });
    await lockSite(scratch);
    const run = await domain([HOST, "--json"], { DEPLOY_LOCK_WAIT_SECONDS: "0" });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("LOCKED");
    expect(api.received).toEqual([]);
  });

  it("domain: a folder without a project is NO_PROJECT and asks nothing", async () => {
    const run = await domain([HOST]);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")[0]).toBe(`Error: no project for ${scratch.site} on ${api.url}`);
    expect(api.received).toEqual([]);
  });

  it("domain: under DEPLOY_CREDENTIAL it acts on the credential's project and writes nothing locally", async () => {
    const env = credentialEnv(api.url, SLUG, "sdp_ci");
    expect(await domain([HOST], env)).toEqual({ code: 0, stdout: domainText(PENDING), stderr: "" });
    expect(await domain(["--reset"], env)).toEqual({ code: 0, stdout: resetText(RESET.project), stderr: "" });
    expect(api.received.map((request) => request.headers.authorization)).toEqual([
      "Bearer sdp_ci",
      "Bearer sdp_ci",
    ]);
    expect(await scratch.saved.list()).toEqual([]);
  });
});
