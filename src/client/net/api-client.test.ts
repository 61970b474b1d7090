import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError } from "../errors.js";
import { ApiClient } from "./api-client.js";
import { defaultRetryPolicy } from "./retry.js";
import { rejectionOf } from "../test-rejection.js";
import { refusal } from "../test-rejection.js";

/** One request as the stand-in for the deploy API received it. */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One scripted answer: status, body text, headers. */
interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

let server: Server;
let baseUrl: string;
let answers: Answer[];
let received: Received[];
const identity = { projectHash: "a".repeat(64), anonFingerprint: "b".repeat(64) };
const json = (status: number, body: unknown): Answer => ({ status, body: JSON.stringify(body) });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const answer = answers.shift() ?? json(200, {});
      res.writeHead(answer.status, answer.headers ?? { "content-type": "application/json" });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  answers = [];
  received = [];
});

const client = () =>
  new ApiClient(baseUrl, identity, defaultRetryPolicy({ maxAttempts: 2, sleep: async () => {} }));

const failure = (promise: Promise<unknown>) => rejectionOf(promise, ApiError);

describe("ApiClient", () => {
  it("ApiClient: each route's method and path; the token as a bearer header; the identity in every body", async () => {
    const api = client();
    await api.prepare("s", "tok", {});
    await api.state("s", "tok");
    await api.promote("s", "tok", "r1");
    await api.assignDomain("s", "tok", "www.example.org");
    await api.checkDomain("s", "tok");
    await api.resetDomain("s", "tok");
    await api.deleteProject("s", "tok");
    await api.createProject();
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /projects/s/prepare",
      "POST /projects/s/state",
      "POST /projects/s/promote",
      "POST /projects/s/domains",
      "POST /projects/s/domains/check",
      "DELETE /projects/s/domains",
      "DELETE /projects/s",
      "POST /projects",
    ]);
    for (const request of received.slice(0, 7)) expect(request.headers.authorization).toBe("Bearer tok");
    expect(received[7]!.headers.authorization).toBeUndefined();
    for (const request of received) {
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers.accept).toBe("application/json");
      expect(JSON.parse(request.body)).toMatchObject(identity);
    }
    expect(JSON.parse(received[2]!.body).revisionId).toBe("r1");
    expect(JSON.parse(received[3]!.body).domain).toBe("www.example.org");
    expect(api.identityFields).toEqual(identity);
  });

  it("prepare: the manifest; unless-unchanged and by-digest add skipUnchanged", async () => {
    const api = client();
    const manifest = { "/s/a": { hash: "c".repeat(32), size: 1 } };
    await api.prepare("s", "tok", manifest);
    await api.prepareUnlessUnchanged("s", "tok", manifest);
    await api.prepareByDigest("s", "tok", "d".repeat(64));
    const bodies = received.map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(bodies[0]).toEqual({ ...identity, manifest });
    expect(bodies[1]).toEqual({ ...identity, manifest, skipUnchanged: true });
    expect(bodies[2]).toEqual({ ...identity, skipUnchanged: true, manifestDigest: "d".repeat(64) });
  });

  it("deploy: preview, rules, message and alias are sent only when given", async () => {
    const api = client();
    await api.deploy("s", "tok", "dep", "jwt");
    await api.deploy("s", "tok", "dep", "jwt", { preview: false, siteRules: {} });
    await api.deploy("s", "tok", "dep", "jwt", {
      preview: true,
      siteRules: { redirects: "/a /b" },
      message: "hi",
      alias: "staging",
    });
    const bodies = received.map((request) => JSON.parse(request.body) as Record<string, unknown>);
    expect(bodies[0]).toEqual({ ...identity, deployId: "dep", completionJwt: "jwt" });
    expect(bodies[1]).toEqual({ ...identity, deployId: "dep", completionJwt: "jwt" });
    expect(bodies[2]).toEqual({
      ...identity,
      deployId: "dep",
      completionJwt: "jwt",
      preview: true,
      siteRules: { redirects: "/a /b" },
      message: "hi",
      alias: "staging",
    });
    expect(received[0]!.url).toBe("/projects/s/deploy");
  });

  it("limits: the server's answer; undefined from a server without the route or with a body that is not JSON", async () => {
    const api = client();
    answers = [
      json(200, { maxFiles: 5 }),
      json(404, { error: { code: "NOT_FOUND", message: "no" } }),
      { status: 200, body: "<html>" },
    ];
    expect(await api.limits()).toEqual({ maxFiles: 5 });
    expect(await api.limits()).toBeUndefined();
    expect(await api.limits()).toBeUndefined();
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual(
      Array(3).fill("GET /limits"),
    );
    answers = [json(400, { error: { code: "BAD", message: "bad" } })];
    expect((await failure(api.limits())).code).toBe("BAD");
  });

  it("ApiClient: an error answer's code and message, in each form the contract allows", async () => {
    const api = client();
    answers = [
      json(409, { error: { code: "DOMAIN_TAKEN", message: "taken by another" } }),
      json(400, { error: "plain words" }),
      json(400, { error: {} }),
      { status: 413, body: `  ${"y".repeat(250)} ` },
      { status: 403, body: "" },
    ];
    const envelope = await failure(api.state("s", "t"));
    expect([envelope.code, envelope.status, envelope.serverMessage]).toEqual([
      "DOMAIN_TAKEN",
      409,
      "taken by another",
    ]);
    expect(envelope.message).toBe("could not read the project: taken by another");
    const text = await failure(api.state("s", "t"));
    expect([text.code, text.serverMessage]).toEqual(["HTTP_400", "plain words"]);
    const empty = await failure(api.state("s", "t"));
    expect([empty.code, empty.serverMessage]).toEqual(["HTTP_400", ""]);
    const long = await failure(api.state("s", "t"));
    expect([long.code, long.serverMessage]).toEqual(["HTTP_413", "y".repeat(200)]);
    const none = await failure(api.state("s", "t"));
    expect([none.code, none.serverMessage]).toEqual(["HTTP_403", "(empty body)"]);
  });

  it("ApiClient: a 2xx whose body is not JSON is BAD_RESPONSE; a 3xx is an error", async () => {
    const api = client();
    answers = [
      { status: 200, body: "<html>" },
      { status: 300, body: "" },
    ];
    const error = await refusal(api.state("s", "t"));
    expect(error).not.toBeInstanceOf(ApiError);
    expect([error.code, error.message]).toEqual([
      "BAD_RESPONSE",
      `could not read the project: ${baseUrl}/projects/s/state answered 200 with a body that is not JSON`,
    ]);
    expect((await failure(api.state("s", "t"))).code).toBe("HTTP_300");
  });

  it("ApiClient: each refusal's hint says what to do", async () => {
    const api = client();
    const hint = async (status: number, code?: string) => {
      answers = [json(status, code === undefined ? {} : { error: { code, message: "m" } })];
      return (await failure(api.promote("s", "t", "r"))).hint;
    };
    expect(await hint(403, "OWNERSHIP_MISMATCH")).toBe(
      "The token kept in your config folder does not match this folder's project; check DEPLOY_CONFIG_DIR.",
    );
    for (const code of ["PROJECT_EXPIRED", "PROJECT_NOT_FOUND", "UNAUTHORIZED"]) {
      expect(await hint(404, code)).toBe("Run `deploy` in this folder to create a new project.");
    }
    expect(await hint(404, "REVISION_NOT_FOUND")).toBe(
      "`deploy list` shows the revisions the project keeps.",
    );
    expect(await hint(409, "DOMAIN_TAKEN")).toBe("Another project holds this hostname; choose another.");
    expect(await hint(400, "INVALID_DOMAIN")).toBe(
      "Give a hostname such as www.example.com or my-name.<sites domain>.",
    );
    expect(await hint(400, "RATE_LIMITED")).toBe("Wait a little and run the command again.");
    expect(await hint(404)).toBe("Is --api-url (or DEPLOY_API_URL) the deploy API's address?");
    expect(await hint(405)).toBe("Is --api-url (or DEPLOY_API_URL) the deploy API's address?");
    expect(await hint(507)).toBe("The server failed; try again later, or ask its operator.");
    expect(await hint(400, "INVALID_REQUEST")).toBeUndefined();
    expect(await hint(499)).toBeUndefined();
  });

  it("ApiClient: Retry-After of a refusal is kept with it", async () => {
    answers = [{ status: 400, body: "{}", headers: { "retry-after": "3" } }];
    expect((await failure(client().state("s", "t"))).retryAfterMs).toBe(3000);
  });
  it("ApiClient: a refusal says which step failed, route by route", async () => {
    const api = client();
    const steps: Array<[string, () => Promise<unknown>]> = [
      ["create a project", () => api.createProject()],
      ["prepare the deploy", () => api.prepare("s", "t", {})],
      ["prepare the deploy", () => api.prepareUnlessUnchanged("s", "t", {})],
      ["prepare the deploy", () => api.prepareByDigest("s", "t", "d")],
      ["complete the deploy", () => api.deploy("s", "t", "dep", "jwt")],
      ["read the project", () => api.state("s", "t")],
      ["promote the revision", () => api.promote("s", "t", "r")],
      ["assign the domain", () => api.assignDomain("s", "t", "x.example")],
      ["check the domain", () => api.checkDomain("s", "t")],
      ["reset the domain", () => api.resetDomain("s", "t")],
      ["delete the project", () => api.deleteProject("s", "t")],
      ["read the server's limits", () => api.limits()],
    ];
    for (const [step, run] of steps) {
      answers = [json(400, { error: { code: "BAD", message: "no" } })];
      expect((await failure(run())).message).toBe(`could not ${step}: no`);
    }
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual([
      "POST /projects",
      "POST /projects/s/prepare",
      "POST /projects/s/prepare",
      "POST /projects/s/prepare",
      "POST /projects/s/deploy",
      "POST /projects/s/state",
      "POST /projects/s/promote",
      "POST /projects/s/domains",
      "POST /projects/s/domains/check",
      "DELETE /projects/s/domains",
      "DELETE /projects/s",
      "GET /limits",
    ]);
    expect(received.at(-1)!.headers.accept).toBe("application/json");
  });

  it("ApiClient: an error that is neither text nor an object is read as the body's text", async () => {
    const api = client();
    answers = [json(400, { error: 5 }), json(400, { error: null })];
    expect((await failure(api.state("s", "t"))).serverMessage).toBe('{"error":5}');
    expect((await failure(api.state("s", "t"))).serverMessage).toBe('{"error":null}');
  });

  it("ApiClient: a 500 that lasts gets the server-failed hint", async () => {
    answers = [json(500, {}), json(500, {})];
    expect((await failure(client().state("s", "t"))).hint).toBe(
      "The server failed; try again later, or ask its operator.",
    );
  });
});
