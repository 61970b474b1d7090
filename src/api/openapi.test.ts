import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "./openapi.js";
import { STATUS_BY_CODE } from "./status-by-code.js";

type Operation = {
  summary?: string;
  security?: unknown;
  parameters?: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: Record<string, unknown> }> }
  >;
};

type Document = {
  openapi: string;
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  components: unknown;
  paths: Record<string, Record<string, Operation>>;
};

/**
 * The document and its operations, built inside each test: mutation testing activates a mutant
 * only while a test runs, so a document built when the file loads would never hold one.
 */
function built() {
  const document = openApiDocument("https://api.example") as Document;
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  const projectOperations = operations.filter(({ path }) => path.startsWith("/projects/{projectSlug}"));
  return { document, operations, projectOperations };
}

describe("openApiDocument", () => {
  it("openApiDocument: an OpenAPI 3.1 document titled, described and served at the given URL, with bearer security", () => {
    const { document } = built();
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.title).toBe("Deploy API");
    expect(document.info.version).not.toBe("");
    expect(document.info.description).toMatch(/Errors are JSON/);
    expect(document.servers).toEqual([{ url: "https://api.example" }]);
    expect(document.components).toEqual({ securitySchemes: { bearer: { type: "http", scheme: "bearer" } } });
  });

  it("openApiDocument: documents each route of the API with its methods", () => {
    const { operations } = built();
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      [
        "get /health",
        "get /healthz",
        "get /limits",
        "post /projects",
        "delete /projects/{projectSlug}",
        "post /projects/{projectSlug}/prepare",
        "post /projects/{projectSlug}/deploy",
        "post /projects/{projectSlug}/state",
        "post /projects/{projectSlug}/promote",
        "post /projects/{projectSlug}/domains",
        "delete /projects/{projectSlug}/domains",
        "post /projects/{projectSlug}/domains/check",
        "get /tls/ask",
      ].sort(),
    );
  });

  it("openApiDocument: every operation has a summary and every response a description", () => {
    const { operations } = built();
    for (const { method, path, operation } of operations) {
      expect(operation.summary, `${method} ${path}`).toMatch(/\w/);
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.description, `${method} ${path} ${status}`).toMatch(/\w/);
      }
    }
  });

  it("openApiDocument: a project route takes the bearer token, the slug in its path and a required JSON body", () => {
    const { projectOperations } = built();
    expect(projectOperations).toHaveLength(8);
    for (const { method, path, operation } of projectOperations) {
      const where = `${method} ${path}`;
      expect(operation.security, where).toEqual([{ bearer: [] }]);
      expect(operation.parameters, where).toEqual([
        { name: "projectSlug", in: "path", required: true, schema: { type: "string" } },
      ]);
      expect(operation.requestBody?.required, where).toBe(true);
      // An object, or prepare's two forms.
      const body = operation.requestBody?.content["application/json"]?.schema;
      expect(body?.["type"] ?? body?.["anyOf"], where).toBeDefined();
      expect(operation.responses["200"]?.content?.["application/json"]?.schema, where).toBeDefined();
    }
  });

  it("openApiDocument: each project route lists the errors every one can answer, and its own", () => {
    const { document, projectOperations } = built();
    const common = ["400", "401", "403", "404", "408", "410", "415", "429", "500", "503"];
    const own: Record<string, string[]> = {
      "delete /projects/{projectSlug}": ["502"],
      "post /projects/{projectSlug}/prepare": ["409", "413", "502", "507"],
      "post /projects/{projectSlug}/deploy": ["409", "422", "502"],
      "post /projects/{projectSlug}/state": [],
      "post /projects/{projectSlug}/promote": ["502"],
      "post /projects/{projectSlug}/domains": ["409", "502"],
      "delete /projects/{projectSlug}/domains": ["502"],
      "post /projects/{projectSlug}/domains/check": ["502"],
    };
    for (const { method, path, operation } of projectOperations) {
      const where = `${method} ${path}`;
      const errors = Object.keys(operation.responses).filter((status) => status !== "200");
      expect(errors.sort(), where).toEqual([...new Set([...common, ...own[where]!])].sort());
    }
    const create = document.paths["/projects"]!["post"]!;
    expect(Object.keys(create.responses).sort()).toEqual([
      "201",
      "400",
      "408",
      "413",
      "415",
      "429",
      "500",
      "503",
    ]);
  });

  it("openApiDocument: an error response names the codes of its status and has the error body's schema", () => {
    const { document } = built();
    const prepare = document.paths["/projects/{projectSlug}/prepare"]!["post"]!;
    expect(prepare.responses["401"]!.description).toBe("error: UNAUTHORIZED");
    expect(prepare.responses["408"]!.description).toMatch(/^error: REQUEST_TIMEOUT/);
    expect(prepare.responses["507"]!.description).toMatch(/^error: INSUFFICIENT_STORAGE/);
    const schema = prepare.responses["401"]!.content!["application/json"]!.schema;
    expect(schema).toMatchObject({ type: "object", required: ["error"] });
  });

  it("openApiDocument: /health documents its body; POST /projects its required body; prepare both of its answers", () => {
    const { document } = built();
    expect(document.paths["/health"]!["get"]!.responses["200"]!.content?.["application/json"]).toBeDefined();
    const create = document.paths["/projects"]!["post"]!;
    expect(create.requestBody?.required).toBe(true);
    expect(create.requestBody?.content["application/json"]?.schema["required"]).toEqual(
      expect.arrayContaining(["projectHash", "anonFingerprint"]),
    );
    const prepare = document.paths["/projects/{projectSlug}/prepare"]!["post"]!;
    expect(prepare.responses["200"]!.content!["application/json"]!.schema["anyOf"]).toHaveLength(2);
  });

  it("openApiDocument: /healthz documents its 503 with the same body as its 200; /tls/ask its domain query", () => {
    const { document } = built();
    const healthz = document.paths["/healthz"]!["get"]!;
    expect(Object.keys(healthz.responses)).toEqual(["200", "503"]);
    expect(healthz.responses["503"]!.content).toEqual(healthz.responses["200"]!.content);
    const ask = document.paths["/tls/ask"]!["get"]!;
    expect(ask.parameters).toEqual([
      { name: "domain", in: "query", required: true, schema: { type: "string" } },
    ]);
    expect(Object.keys(ask.responses)).toEqual(["200", "400", "404", "429"]);
  });

  it("openApiDocument: every error code of core/errors.ts is named under its status", () => {
    const { operations } = built();
    // The codes as core/errors.ts declares them, read from its source: not from the status table.
    const source = readFileSync(new URL("../core/errors.ts", import.meta.url), "utf8");
    const union = /export type ErrorCode =([^;]*);/.exec(source)![1]!;
    const codes = [...union.matchAll(/"([A-Z_]+)"/g)].map((match) => match[1]!);
    expect(codes.length).toBeGreaterThan(30);
    for (const code of codes) {
      const status = String(STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE]);
      const named = operations.filter(({ operation }) =>
        new RegExp(`\\b${code}\\b`).test(operation.responses[status]?.description ?? ""),
      );
      expect(named.length, `${code} under ${status}`).toBeGreaterThan(0);
    }
  });
});
